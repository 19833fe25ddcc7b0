// The PTX inside a fat binary: what nvcc's host code hands to
// __cudaRegisterFatBinary, read back as text for wl::ptx::Module::parse.
//
// A registered fat binary is a wrapper {magic 0x466243B1, version, pointer to
// the data, 0}; the data is a header {magic 0xBA55ED50, version, header size,
// size of the entries} followed by entries, each with its own header (its
// size is a field: nvcc's vary) and a payload. Kind 1 is PTX, kind 2 machine
// code (ELF, skipped). A PTX payload is stored plain (nvcc -compress-mode=none),
// zstd-compressed (flag 0x8000, nvcc's default) or as an LZ4 block (flag 0x2000,
// -compress-mode=speed).
#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace wl::cudart {

// Malformed or unreadable input; the message is one line.
class FatbinError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline constexpr std::uint32_t kFatbinWrapperMagic = 0x466243B1;
inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

struct PtxEntry {
    unsigned arch = 0;     // the virtual architecture: 90 for compute_90
    std::string name;      // the source it was made from, as the entry names it ("vadd.cu")
    std::string text;      // the PTX, decompressed
};

// Every PTX entry of the fat binary in `bytes` (the header and its entries; bytes
// past the header's size are ignored). Throws FatbinError.
std::vector<PtxEntry> read_fatbin(std::span<const unsigned char> bytes);

// The same from the wrapper registered in this process' memory (its header
// says how many bytes to read). Throws FatbinError.
std::vector<PtxEntry> read_registered_fatbin(const void* wrapper);

}  // namespace wl::cudart
