// What the grader shows: a text report for people, Gradescope's results.json
// and JUnit XML for autograders and CI. Pure functions of a GradeReport.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "grader.h"

namespace wl::grade {

std::string seed_line(const GradeReport& r);  // the run's seed, and how to repeat it
std::string text_header(const GradeReport& r);
std::string text_exercise(const ExerciseResult& ex);  // printed as each exercise finishes
std::string text_score(const GradeReport& r);          // closes the report

// One check's story in plain text: measured, expected, where, hint.
std::string check_details(const ExerciseResult& ex, const CheckResult& c);

nlohmann::json gradescope_results(const GradeReport& r);
std::string junit_xml(const GradeReport& r);
std::string xml_escape(const std::string& s);

}  // namespace wl::grade
