// The checks of each exercise (exercises/En.cpp), by id.
#pragma once
#include <string_view>

namespace wl::grade {

class Harness;
using ExerciseChecks = void (*)(Harness&);

namespace e1 { void grade(Harness& h); }
namespace e2 { void grade(Harness& h); }
namespace e3 { void grade(Harness& h); }
namespace e4 { void grade(Harness& h); }
namespace e5 { void grade(Harness& h); }
namespace e6 { void grade(Harness& h); }
namespace e7 { void grade(Harness& h); }
namespace e8 { void grade(Harness& h); }
namespace e9 { void grade(Harness& h); }
namespace e10 {
void grade(Harness& h);
// The n-way of a full warp reading shared[stride * lane] of `size`-byte elements (the trace's bank model).
unsigned model_ways(unsigned stride, unsigned size);
}

// nullptr for an unknown id.
inline ExerciseChecks checks_of(std::string_view id)
{
    constexpr struct {
        std::string_view id;
        ExerciseChecks checks;
    } table[] = {{"E1", e1::grade}, {"E2", e2::grade}, {"E3", e3::grade}, {"E4", e4::grade},
                 {"E5", e5::grade}, {"E6", e6::grade}, {"E7", e7::grade}, {"E8", e8::grade},
                 {"E9", e9::grade}, {"E10", e10::grade}};
    for (const auto& t : table)
        if (t.id == id) return t.checks;
    return nullptr;
}

}  // namespace wl::grade
