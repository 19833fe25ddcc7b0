// The traced column of ops.def, by the opcode's first word (traced.h).
#include "traced.h"

#include <utility>

namespace wl::ptx::detail {

namespace {

// Each operation's column, by its enumerator's name, so that a further
// spelling (PTX_NAME) finds its operation's.
namespace traced_by_operation {
#define PTX_OP(Enum, name, exec, mix, traced) constexpr TraceRecord Enum = TraceRecord::traced;
#include "ops.def"
}  // namespace traced_by_operation

constexpr std::pair<std::string_view, TraceRecord> kTracedByName[] = {
#define PTX_OP(Enum, name, exec, mix, traced) {name, traced_by_operation::Enum},
#define PTX_NAME(name, Enum) {name, traced_by_operation::Enum},
#include "ops.def"
};

}  // namespace

TraceRecord trace_record(std::string_view first_word)
{
    if (first_word.empty()) return TraceRecord::Nothing;  // the rows a qualifier makes have no word
    for (const auto& [name, traced] : kTracedByName)
        if (name == first_word) return traced;
    return TraceRecord::Nothing;
}

}  // namespace wl::ptx::detail
