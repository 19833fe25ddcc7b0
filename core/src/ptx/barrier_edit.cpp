// A module's PTX without the barriers of one source line (barrier_edit.h).
#include "warplab/ptx/barrier_edit.h"

#include <algorithm>
#include <map>
#include <set>

#include "statements.h"

namespace wl::ptx {
namespace {

namespace reader = detail;

// "kernels/reduction/03_x.cuh" -> "03_x.cuh": PTX's .file paths and a front
// end's names of a file agree on this much.
std::string_view file_name(std::string_view path)
{
    const std::size_t slash = path.find_last_of("/\\");
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A barrier a thread waits at until others arrive: bar.sync, barrier.sync,
// bar.warp.sync (and their .aligned / .cta forms), not bar.red or bar.arrive.
bool is_waiting_barrier(const reader::InstructionStatement& in)
{
    if (in.parts.empty() || (in.parts[0] != "bar" && in.parts[0] != "barrier")) return false;
    return reader::has_part(in, "sync") && !reader::has_part(in, "red") && !reader::has_part(in, "arrive");
}

}  // namespace

BarrierEdit without_barriers(std::string_view ptx, std::string_view file, std::uint32_t line)
{
    BarrierEdit out{std::string(ptx), 0, {}};
    const std::vector<reader::Token> tokens = reader::tokenize(ptx);
    const std::vector<reader::Statement> statements = reader::split_statements(tokens);
    std::map<std::uint32_t, std::string> files;  // nvcc writes the .file directives after the functions
    for (const reader::Statement& s : statements)
        if (auto f = reader::read_file_directive(tokens, s)) files[f->index] = f->path;
    reader::CallerChains callers;
    std::set<std::uint32_t> lines;
    bool in_file = false;      // the current .loc's user frame is in `file`
    std::uint32_t at_line = 0;  // and its line
    for (const reader::Statement& s : statements) {
        const std::string_view head = tokens[s.first].s;
        if (s.kind == reader::StatementKind::Directive && head == ".loc") {
            std::string error;
            auto named = reader::read_loc(tokens, s, error);
            if (!named) continue;  // the parser reports it
            bool found = false;
            const reader::SourceFrame frame = reader::user_frame(callers.chain(std::move(*named)), files, found);
            const auto path = files.find(frame.first);
            in_file = found && path != files.end() && file_name(path->second) == file_name(file);
            at_line = frame.second;
        } else if (reader::is_function_header(tokens, s)) {
            callers.start_function();  // a .loc's callers are its function's
            in_file = false;
        } else if (s.kind == reader::StatementKind::Instruction && in_file &&
                   is_waiting_barrier(reader::read_instruction(tokens, s))) {
            lines.insert(at_line);
            if (at_line != line) continue;
            const std::string_view text = reader::source_span(tokens, s);
            const std::size_t at = static_cast<std::size_t>(text.data() - ptx.data());
            std::fill_n(out.ptx.begin() + static_cast<std::ptrdiff_t>(at), text.size(), ' ');
            ++out.removed;
        }
    }
    out.barrier_lines.assign(lines.begin(), lines.end());
    return out;
}

}  // namespace wl::ptx
