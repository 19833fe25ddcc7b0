// One reduction request on any backend: seeded input, the version's passes,
// and the check against the CPU reference. The emulator, the GPU trace and
// the benchmark differ only in the backend they pass in.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/reduction/driver.h"
#include "labs/reduction/problem.h"

namespace warplab::reduction {

// Calls f.template operator()<T>() with T = int or float, as `type` names it.
template <class F> decltype(auto) with_element_type(const std::string& type, F&& f)
{
    if (type == "int") return f.template operator()<int>();
    if (type == "float") return f.template operator()<float>();
    throw std::invalid_argument("unknown type '" + type + "' (use int or float)");
}

template <class T, class Backend> RunResult reduce_request(Backend& be, const RunRequest& req)
{
    const std::vector<T> input = make_input<T>(req.n, req.seed);
    T* d_in = be.template alloc<T>(req.n);
    be.copy_to_device(d_in, input.data(), req.n);
    RunResult out;
    out.threads_per_block = req.block;
    const bool found = for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if (req.version != V::meta.id) return false;
        out.value = static_cast<double>(reduce_on<V>(be, d_in, req.n, req.block));
        return true;
    });
    be.free(d_in);
    if (!found) throw std::invalid_argument("unknown reduction version '" + req.version + "'");
    out.expected = reference_sum(input);
    out.ok = sum_matches<T>(out.value, out.expected);
    return out;
}

}  // namespace warplab::reduction
