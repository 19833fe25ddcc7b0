// What a command prints (stdout and stderr together) and its wait status: the
// cudart tests run the programs they build through it.
#pragma once
#include <cstdio>
#include <string>

namespace warplab::test {

struct Output {
    int status = -1;
    std::string text;
};

inline Output run(const std::string& command)
{
    Output out;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.text.append(buf, n);
    out.status = pclose(p);
    return out;
}

}  // namespace warplab::test
