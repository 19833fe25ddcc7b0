// "did you mean ...?" for a mistyped lab, version, exercise or option: the
// nearest known name by edit distance (insertions, deletions, substitutions
// and swaps of neighbours each count one), offered only when it is close
// enough to be a typo (at most a third of the word's letters, at least one).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "labs/common/lab.h"

namespace warplab {

// The optimal string alignment distance (Damerau–Levenshtein without repeated edits of one substring).
inline std::size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// " (did you mean 'reduction'?)", or "" when no name is near enough.
inline std::string did_you_mean(std::string_view word, const std::vector<std::string>& names, std::string_view prefix = "")
{
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    const std::string* best = nullptr;
    std::size_t best_distance = limit + 1;
    for (const std::string& name : names)
        if (const std::size_t d = edit_distance(word, name); d < best_distance) best = &name, best_distance = d;
    return best ? " (did you mean '" + std::string(prefix) + *best + "'?)" : "";
}

inline std::string unknown_lab(std::string_view id)
{
    std::vector<std::string> ids;
    for (const Lab& lab : all_labs()) ids.push_back(lab.id);
    return "unknown lab '" + std::string(id) + "'" + did_you_mean(id, ids) + " (see `warplab list`)";
}

inline std::string unknown_version(const Lab& lab, std::string_view id, std::string_view what = "")
{
    std::vector<std::string> ids;
    for (const Version& v : lab.versions) ids.push_back(v.id);
    return "unknown version '" + std::string(id) + "' of lab " + lab.id + std::string(what) + did_you_mean(id, ids) +
           " (see `warplab list`)";
}

// For a CLI11 app whose parse failed: the first --option of argv that no
// command of the app knows, with the nearest that one does; "" when none.
template <class App> std::string unknown_option_hint(App& app, int argc, char** argv)
{
    std::vector<std::string> known;
    std::vector<App*> apps = app.get_subcommands([](App*) { return true; });
    apps.push_back(&app);
    for (App* a : apps)
        for (const auto* option : a->get_options())
            for (const std::string& name : option->get_lnames()) known.push_back(name);
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--") break;
        if (arg.size() < 3 || arg.substr(0, 2) != "--") continue;
        const std::string name(arg.substr(2, arg.find('=') == std::string_view::npos ? std::string_view::npos : arg.find('=') - 2));
        if (std::find(known.begin(), known.end(), name) == known.end()) return did_you_mean(name, known, "--");
    }
    return "";
}

}  // namespace warplab
