#include "report.h"

#include <cstdio>
#include <sstream>

#include "warplab/version.h"

namespace wl::grade {
namespace {

std::string percent(unsigned points, unsigned max)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.1f%%", max ? 100.0 * points / max : 0.0);
    return s;
}

std::string fraction(unsigned points, unsigned max) { return std::to_string(points) + "/" + std::to_string(max); }

bool not_run(const CheckResult& c) { return !c.passed && c.measured.rfind("not run", 0) == 0; }

// Indents every line after the first by `pad`.
std::string indent(const std::string& text, const std::string& pad)
{
    std::string out;
    for (char ch : text) {
        out += ch;
        if (ch == '\n') out += pad;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
    return out;
}

std::string pad_right(std::string s, std::size_t width)
{
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// The exercise's problem, less its first line where the check's reason already says it.
std::string problem_details(const ExerciseResult& ex, const CheckResult& c)
{
    const std::size_t eol = ex.problem.find('\n');
    const std::string first = ex.problem.substr(0, eol);
    const bool said = c.measured.size() >= first.size() &&
                      c.measured.compare(c.measured.size() - first.size(), first.size(), first) == 0;
    if (!said) return ex.problem;
    return eol == std::string::npos ? std::string() : ex.problem.substr(eol + 1);
}

// "NVIDIA H200: 0.0964 ms, reference solution 0.0963 ms (1.00x its time; not graded)",
// "not timed: why", or nothing when no timing was asked for.
std::string timing_summary(const GpuTiming& t)
{
    if (!t.done) return t.note.empty() ? std::string() : "not timed: " + t.note;
    char s[256];
    std::snprintf(s, sizeof s, "%s: %.4g ms, reference solution %.4g ms (%.2fx its time; not graded)", t.gpu.c_str(),
                  t.student_ms, t.reference_ms, t.reference_ms > 0 ? t.student_ms / t.reference_ms : 0);
    return s;
}

std::string version_line() { return "graded by warplab " + version_text(); }

// "wrong on 3 of 6 cases (right on the other 3):" and a line a case: its input
// (size or shape), then its first wrong element (what the kernel wrote, what was
// due) or its fault in brief; `pad` before each line.
std::string failed_cases_text(const CheckResult& c, const std::string& pad)
{
    if (c.failed_cases.empty()) return {};
    const std::size_t wrong = c.failed_cases.size();
    std::string s = pad + "wrong on " + std::to_string(wrong) + " of " + std::to_string(c.cases) +
                    (c.cases == 1 ? " case" : " cases") +
                    (wrong < c.cases ? " (right on the other " + std::to_string(c.cases - wrong) + ")" : "") +
                    (c.cases_not_run.empty() ? "" : "; " + c.cases_not_run) + ":\n";
    constexpr std::size_t kLongest = 200;  // a long fault is cut here; the checks' result line keeps it whole
    for (const FailedCase& f : c.failed_cases) {
        std::string what = f.measured.substr(0, f.measured.find('\n'));
        if (what.size() > kLongest) what = what.substr(0, kLongest) + " ...";
        s += pad + "  " + f.name + ": " + what + "\n";
    }
    return s;
}

}  // namespace

std::string seed_line(const GradeReport& r)
{
    return "random cases from seed " + std::to_string(r.seed) + " (--seed " + std::to_string(r.seed) +
           " repeats them)";
}

std::string text_header(const GradeReport& r)
{
    return "warplab grade: " + r.dir.string() + " (" + r.backend + ")\n" + seed_line(r) + "\n" + version_line() + "\n\n";
}

std::string check_details(const ExerciseResult& ex, const CheckResult& c)
{
    std::string s;
    if (!c.measured.empty()) s += (c.passed || !c.graded ? "" : "measured: ") + c.measured + "\n";
    if (c.passed || !c.graded) return s;
    if (not_run(c) && !ex.problem.empty()) {
        const std::string details = problem_details(ex, c);
        return s + (details.empty() ? "" : details + "\n") + "hint:     " + c.hint + "\n";
    }
    if (!c.expected.empty()) s += "expected: " + c.expected + "\n";
    if (!c.where.empty()) s += "where:    " + c.where + "\n";
    if (!c.hint.empty()) s += "hint:     " + c.hint + "\n";
    return s + failed_cases_text(c, "");
}

namespace {

// One check in the text report: PASS/FAIL, then why. The exercise's problem
// (compile errors, time limit) appears once, under its first check not run.
std::string check_text(const ExerciseResult& ex, const CheckResult& c, bool& problem_shown)
{
    const std::string pad = "          ";
    std::ostringstream s;
    s << "  " << (c.passed ? "PASS" : "FAIL") << "  " << pad_right(c.id, 18) << " " << c.title << "  ["
      << fraction(c.points, c.max_points) << "]\n";
    if (not_run(c)) {
        s << pad << c.measured << "\n";
        const std::string details = problem_details(ex, c);
        if (!problem_shown && !details.empty()) s << pad << "  " << indent(details, pad + "  ") << "\n";
        if (!problem_shown) s << pad << "hint:     " << c.hint << "\n";
        problem_shown = true;
        return s.str();
    }
    if (c.passed || !c.graded) return s.str() + pad + c.measured + "\n";
    s << pad << "measured: " << indent(c.measured, pad + "  ") << "\n";
    if (!c.expected.empty()) s << pad << "expected: " << c.expected << "\n";
    if (!c.where.empty()) s << pad << "where:    " << c.where << "\n";
    if (!c.hint.empty()) s << pad << "hint:     " << c.hint << "\n";
    return s.str() + failed_cases_text(c, pad);
}

}  // namespace

std::string text_exercise(const ExerciseResult& ex)
{
    const ExerciseSpec& spec = *ex.spec;
    std::string s = std::string(spec.id) + "  " + std::string(spec.title) + " (mirrors " + std::string(spec.mirrors) + ")\n";
    if (!ex.kernel_file.empty()) s += "    " + ex.kernel_file.string() + "\n";
    if (!ex.warnings.empty()) s += "    nvcc warns:\n      " + indent(ex.warnings, "      ") + "\n";
    bool problem_shown = false;
    for (const CheckResult& c : ex.checks) s += check_text(ex, c, problem_shown);
    if (const std::string t = timing_summary(ex.timing); !t.empty()) s += "  GPU   " + t + "\n";
    return s + "  " + std::string(spec.id) + " score: " + fraction(ex.points(), ex.max_points()) + "\n\n";
}

std::string text_score(const GradeReport& r)
{
    std::ostringstream s;
    unsigned passed = 0, total = 0;
    for (const ExerciseResult& ex : r.exercises)
        for (const CheckResult& c : ex.checks) {
            passed += c.passed;
            ++total;
        }
    s << "checks passed: " << passed << " of " << total << "\n";
    s << "score: " << fraction(r.points(), r.max_points()) << " (" << percent(r.points(), r.max_points()) << ")\n";
    return s.str();
}

nlohmann::json gradescope_results(const GradeReport& r)
{
    nlohmann::json tests = nlohmann::json::array();
    for (const ExerciseResult& ex : r.exercises) {
        unsigned k = 0;
        for (const CheckResult& c : ex.checks) {
            std::string output = check_details(ex, c);
            if (!ex.kernel_file.empty()) output += "file: " + ex.kernel_file.filename().string() + "\n";
            tests.push_back({{"name", std::string(ex.spec->id) + " " + c.id + ": " + c.title},
                             {"number", std::string(ex.spec->id) + "." + std::to_string(++k)},
                             {"score", c.points},
                             {"max_score", c.max_points},
                             {"status", c.passed ? "passed" : "failed"},
                             {"output", output}});
        }
    }
    std::string output = "warplab grade: " + fraction(r.points(), r.max_points()) + " (" +
                         percent(r.points(), r.max_points()) + ")\n" + seed_line(r) + "\n" + version_line() + "\n";
    for (const ExerciseResult& ex : r.exercises)
        if (const std::string t = timing_summary(ex.timing); !t.empty())
            output += std::string(ex.spec->id) + " on the GPU: " + t + "\n";
    return {{"score", r.points()}, {"output", output}, {"tests", tests}};
}

std::string xml_escape(const std::string& s)
{
    std::string out;
    for (unsigned char ch : s) {
        switch (ch) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
            if (ch >= 0x20 || ch == '\n' || ch == '\t') out += static_cast<char>(ch);  // no other control characters in XML 1.0
        }
    }
    return out;
}

std::string junit_xml(const GradeReport& r)
{
    unsigned tests = 0, failures = 0;
    double seconds = 0;
    for (const ExerciseResult& ex : r.exercises) {
        seconds += ex.build_seconds + ex.run_seconds;
        for (const CheckResult& c : ex.checks) {
            ++tests;
            failures += !c.passed;
        }
    }
    std::ostringstream s;
    s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"warplab grade\" tests=\"" << tests << "\" failures=\"" << failures << "\" time=\""
      << seconds << "\">\n";
    for (const ExerciseResult& ex : r.exercises) {
        unsigned ex_failures = 0;
        for (const CheckResult& c : ex.checks) ex_failures += !c.passed;
        s << "  <testsuite name=\"" << xml_escape(std::string(ex.spec->id) + " " + std::string(ex.spec->title))
          << "\" tests=\"" << ex.checks.size() << "\" failures=\"" << ex_failures << "\" errors=\"0\" time=\""
          << ex.build_seconds + ex.run_seconds << "\">\n"
          << "    <properties><property name=\"score\" value=\"" << fraction(ex.points(), ex.max_points())
          << "\"/><property name=\"warplab\" value=\"" << xml_escape(version_text()) << "\"/></properties>\n";
        for (const CheckResult& c : ex.checks) {
            s << "    <testcase classname=\"warplab.grade." << ex.spec->id << "\" name=\"" << xml_escape(c.id)
              << "\" time=\"0\">";
            if (!c.passed) {
                s << "\n      <failure message=\"" << xml_escape(c.measured.substr(0, c.measured.find('\n')))
                  << "\" type=\"" << (c.graded ? "check failed" : "not graded") << "\">"
                  << xml_escape(check_details(ex, c)) << "</failure>\n    ";
            }
            s << "</testcase>\n";
        }
        if (const std::string t = timing_summary(ex.timing); !t.empty())
            s << "    <system-out>GPU: " << xml_escape(t) << "</system-out>\n";
        s << "  </testsuite>\n";
    }
    s << "</testsuites>\n";
    return s.str();
}

}  // namespace wl::grade
