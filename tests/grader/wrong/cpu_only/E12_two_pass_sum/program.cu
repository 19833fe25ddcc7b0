// A wrong E12: the host adds the input itself and launches nothing. It prints
// the right sum, so only the launch table tells: correct fails ("launched no
// kernel"), and no property is graded without a right case: 0/10.
#include <cstdio>
#include <cstdlib>

int input_value(unsigned i, unsigned seed)
{
    unsigned x = (i + 1u) * 2654435761u ^ seed;
    x ^= x >> 13;
    return int(x % 201u) - 100;
}

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    const unsigned n = std::atoi(argv[1]), seed = std::atoi(argv[2]);
    int sum = 0;
    for (unsigned i = 0; i < n; ++i) sum += input_value(i, seed);
    std::printf("sum %d\n", sum);
    return 0;
}
