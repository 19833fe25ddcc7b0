// A lesson rendered headless (--lesson FILE --tour DIR): one picture per
// slide, as presented with its answer hidden (and one revealed where it asks
// something), and a handout page with the captions, the questions and their
// answers read from the traces.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "labs/common/png_io.h"
#include "labs/common/user_kernel.h"
#include "viewer/model/format.h"
#include "viewer/platform/headless.h"
#include "viewer/app/lesson_player.h"

namespace warplab::viewer {

namespace {

std::string html_escaped(const std::string& text)
{
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

struct HandoutSlide {
    std::string picture, heading, caption, question, answer, answer_picture;
};

void write_handout(const std::filesystem::path& dir, const Lesson& lesson, const std::vector<HandoutSlide>& slides)
{
    std::ofstream html(dir / "index.html");
    html << "<!doctype html><meta charset=utf-8><title>" << html_escaped(lesson.title) << "</title>\n"
         << "<style>body{font-family:sans-serif;max-width:60em;margin:auto}img{width:100%;border:1px solid #999}"
            ".question{font-weight:bold}</style>\n"
         << "<h1>" << html_escaped(lesson.title) << "</h1>\n";
    if (!lesson.source.empty()) html << "<p>After " << html_escaped(lesson.source) << ".</p>\n";
    for (const HandoutSlide& s : slides) {
        html << "<h2>" << html_escaped(s.heading) << "</h2>\n<img src=\"" << s.picture << "\" alt=\"" << html_escaped(s.heading)
             << "\">\n<p>" << html_escaped(s.caption) << "</p>\n";
        if (!s.question.empty())
            html << "<p class=question>" << html_escaped(s.question) << "</p>\n<details><summary>Answer</summary><p>"
                 << html_escaped(s.answer) << "</p><img src=\"" << s.answer_picture << "\" alt=\"the answer revealed\"></details>\n";
    }
    if (!html) throw std::runtime_error("cannot write " + (dir / "index.html").string());
}

HandoutSlide handout_slide(App& app)
{
    const Slide& slide = current_slide(app);
    HandoutSlide h;
    h.picture = printf_string("slide%02zu.png", app.lesson.slide + 1);
    if (!slide.run.empty()) {  // a program's launch: "2. block_sum:1 of sum_of_squares.cu, step 1"
        h.heading = printf_string("%zu. %s of %s, step %u", app.lesson.slide + 1, launch_text(slide).c_str(),
                                  UserKernel::shown_path(slide.run).c_str(), slide.step);
    } else {
        const std::string shown = slide.file.empty() ? slide.version
                                                     : slide.kernel + " from " + UserKernel::shown_path(slide.file) + " in " + slide.version + "'s launch";
        h.heading = printf_string("%zu. %s %s", app.lesson.slide + 1, slide.lab.c_str(), shown.c_str());
        if (!find_lab(slide.lab)->host_programs) h.heading += printf_string(", step %u", slide.step);  // host programs: no steps
    }
    if (!slide.compare.empty()) h.heading += " beside " + (slide.run.empty() ? slide.compare : slide.lab + " " + slide.compare);
    h.caption = slide.caption;
    if (slide.question) {
        h.question = slide.question->text;
        h.answer_picture = printf_string("slide%02zu_answer.png", app.lesson.slide + 1);
        h.answer = answer_text(*slide_answer(app).value) +
                   (slide.question->explanation.empty() ? "" : ". " + slide.question->explanation);
    }
    return h;
}

}  // namespace

int run_lesson_tour(Platform& platform, App& app, const Options& options)
{
    const std::filesystem::path dir = options.tour;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const Lesson& lesson = *app.lesson.lesson;
    std::vector<HandoutSlide> slides;
    try {
        for (std::size_t i = 0; i < lesson.slides.size(); ++i) {
            show_slide(app, i);
            // A question the trace cannot answer, or answers otherwise than the lesson says, stops the handout.
            if (const std::string wrong = answer_disagreement(app); !wrong.empty()) throw std::runtime_error(options.lesson + ": " + wrong);
            slides.push_back(handout_slide(app));
            write_png((dir / slides.back().picture).string(), frame_image(platform, app));
            if (slides.back().answer_picture.empty()) continue;
            toggle_reveal(app);
            write_png((dir / slides.back().answer_picture).string(), frame_image(platform, app));
        }
        write_handout(dir, lesson, slides);
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        return 1;
    }
    std::printf("warplab-viewer: wrote %zu slides of '%s' to %s; open %s in a browser\n", slides.size(), lesson.title.c_str(),
                dir.string().c_str(), (dir / "index.html").string().c_str());
    return 0;
}

}  // namespace warplab::viewer
