// The traced column of the table of operations (core/src/ptx/ops.def) as the
// GPU trace's instrumenter reads it (traced.h): by the first word of an
// opcode, what the trace records of the instruction. The expected rows are the
// trace's kinds: ld/st accesses, cp.async's copy, atomics, barriers, and the
// warp collectives whose inputs it keeps (shuffles apart from votes).
#include <gtest/gtest.h>

#include "traced.h"

namespace {

using wl::ptx::detail::trace_record;
using wl::ptx::detail::TraceRecord;

TEST(TraceRecord, NamesWhatEachRecordedOperationRecords)
{
    EXPECT_EQ(trace_record("ld"), TraceRecord::Load);
    EXPECT_EQ(trace_record("ldu"), TraceRecord::Load);  // a further spelling (PTX_NAME) takes its operation's row
    EXPECT_EQ(trace_record("st"), TraceRecord::Store);
    EXPECT_EQ(trace_record("cp"), TraceRecord::Copy);
    EXPECT_EQ(trace_record("atom"), TraceRecord::Atomic);
    EXPECT_EQ(trace_record("red"), TraceRecord::Atomic);
    EXPECT_EQ(trace_record("bar"), TraceRecord::Barrier);
    EXPECT_EQ(trace_record("barrier"), TraceRecord::Barrier);
    EXPECT_EQ(trace_record("shfl"), TraceRecord::Shuffle);
    for (const char* word : {"vote", "match", "redux"}) EXPECT_EQ(trace_record(word), TraceRecord::Vote) << word;
}

TEST(TraceRecord, RecordsNothingForTheRestAndForWhatIsNoFirstWord)
{
    // Arithmetic, control, texture fetches, fences, mbarriers and the collectives without a lane input.
    for (const char* word : {"mov", "add", "fma", "setp", "bra", "ret", "tex", "fence", "membar", "mbarrier",
                             "activemask", "mma", "nanosleep"})
        EXPECT_EQ(trace_record(word), TraceRecord::Nothing) << word;
    // The rows a qualifier makes (mul.hi, bar.warp.sync) have no word; a whole opcode is not one, nor a near miss.
    for (const char* word : {"", "ld.global", "bar.warp", "lds", "LD"})
        EXPECT_EQ(trace_record(word), TraceRecord::Nothing) << word;
}

}  // namespace
