// The checks of each exercise (exercises/En.cpp), by id: the table is
// generated from the catalog (exercise_checks.h, apps/grader/CMakeLists.txt).
#pragma once
#include <string_view>

#include "exercise_checks.h"

namespace wl::grade {

using ExerciseChecks = void (*)(Harness&);

namespace e10 {
// The n-way of a full warp reading shared[stride * lane] of `size`-byte elements (the trace's bank model).
unsigned model_ways(unsigned stride, unsigned size);
}

// nullptr for an unknown id.
inline ExerciseChecks checks_of(std::string_view id)
{
    for (const auto& t : kExerciseChecks)
        if (t.id == id) return t.checks;
    return nullptr;
}

}  // namespace wl::grade
