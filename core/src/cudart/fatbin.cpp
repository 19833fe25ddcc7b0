// Reading a fat binary's PTX entries (warplab/cudart/fatbin.h). The layout is
// nvcc's, as its fatbinary_section.h declares the wrapper and as the files it
// writes show the rest; every size is checked against the bytes before use.
#include "warplab/cudart/fatbin.h"

#include <lz4.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>

namespace wl::cudart {

namespace {

// An entry's header: the fields read, at their offsets.
constexpr std::size_t kEntryKind = 0, kEntryHeaderSize = 4, kEntryPayloadSize = 8, kEntryCompressedSize = 16,
                      kEntryArch = 28, kEntryNameOffset = 32, kEntryNameLength = 36, kEntryFlags = 40,
                      kEntryDecompressedSize = 56, kEntryFieldsEnd = 64;
constexpr std::size_t kHeaderBytes = 16;  // magic, version, header size, entries' size
constexpr std::uint16_t kKindPtx = 1;
constexpr std::uint64_t kZstdFlag = 0x8000, kLz4Flag = 0x2000;
// Far above any program's PTX; a larger size is a corrupt field, not an allocation to try.
constexpr std::uint64_t kMaxPtxBytes = std::uint64_t(1) << 30;

template <class T> T field(std::span<const unsigned char> bytes, std::size_t at)
{
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    return v;
}

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
    return buf;
}

std::string decompress(std::span<const unsigned char> stored, std::uint64_t flags, std::uint64_t size, std::size_t entry_at)
{
    const std::string where = "fat binary: the PTX entry at byte " + std::to_string(entry_at);
    if (!(flags & (kZstdFlag | kLz4Flag))) {  // plain text, padded with zeros
        const auto* text = reinterpret_cast<const char*>(stored.data());
        return std::string(text, strnlen(text, stored.size()));
    }
    if (size == 0 || size > kMaxPtxBytes) throw FatbinError(where + " gives a decompressed size of " + std::to_string(size) + " bytes");
    std::string text(size, '\0');
    if (flags & kZstdFlag) {
        if (const auto framed = ZSTD_getFrameContentSize(stored.data(), stored.size());
            framed != ZSTD_CONTENTSIZE_ERROR && framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != size)
            throw FatbinError(where + " decompresses to " + std::to_string(framed) + " bytes, not the " + std::to_string(size) + " it gives");
        const std::size_t n = ZSTD_decompress(text.data(), text.size(), stored.data(), stored.size());
        if (ZSTD_isError(n)) throw FatbinError(where + " is not valid zstd data (" + ZSTD_getErrorName(n) + ")");
        if (n != size) throw FatbinError(where + " decompresses to " + std::to_string(n) + " bytes, not the " + std::to_string(size) + " it gives");
    } else {
        const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(stored.data()), text.data(), static_cast<int>(stored.size()),
                                          static_cast<int>(size));
        if (n < 0) throw FatbinError(where + " is not a valid LZ4 block");
        if (std::uint64_t(n) != size) throw FatbinError(where + " decompresses to " + std::to_string(n) + " bytes, not the " + std::to_string(size) + " it gives");
    }
    text.resize(strnlen(text.data(), text.size()));
    return text;
}

}  // namespace

std::vector<PtxEntry> read_fatbin(std::span<const unsigned char> bytes)
{
    if (bytes.size() < kHeaderBytes) throw FatbinError("fat binary: " + std::to_string(bytes.size()) + " bytes, shorter than its header");
    if (const auto magic = field<std::uint32_t>(bytes, 0); magic != kFatbinMagic)
        throw FatbinError("fat binary: magic " + hex(magic) + ", not " + hex(kFatbinMagic));
    const std::uint64_t header = field<std::uint16_t>(bytes, 6), entries = field<std::uint64_t>(bytes, 8);
    if (header < kHeaderBytes || entries > bytes.size() || header + entries > bytes.size())
        throw FatbinError("fat binary: its header gives " + std::to_string(header) + " + " + std::to_string(entries) +
                          " bytes, but there are " + std::to_string(bytes.size()));
    const std::uint64_t end = header + entries;
    std::vector<PtxEntry> out;
    for (std::uint64_t at = header; at < end;) {
        const std::string where = "fat binary: the entry at byte " + std::to_string(at);
        if (end - at < kEntryFieldsEnd) throw FatbinError(where + " has no room for its header");
        const auto entry = bytes.subspan(at, end - at);
        const std::uint64_t entry_header = field<std::uint32_t>(entry, kEntryHeaderSize);
        const std::uint64_t payload = field<std::uint64_t>(entry, kEntryPayloadSize);
        if (entry_header < kEntryFieldsEnd || entry_header > entry.size() || payload > entry.size() - entry_header)
            throw FatbinError(where + " gives a header of " + std::to_string(entry_header) + " bytes and a payload of " +
                              std::to_string(payload) + ", past the fat binary's end");
        if (field<std::uint16_t>(entry, kEntryKind) == kKindPtx) {
            PtxEntry e;
            e.arch = field<std::uint32_t>(entry, kEntryArch);
            const std::uint64_t name_at = field<std::uint32_t>(entry, kEntryNameOffset), name_length = field<std::uint32_t>(entry, kEntryNameLength);
            if (name_at >= kEntryFieldsEnd && name_at + name_length <= entry_header) {
                const auto* name = reinterpret_cast<const char*>(entry.data() + name_at);
                e.name.assign(name, strnlen(name, name_length));
            }
            std::uint64_t stored = field<std::uint32_t>(entry, kEntryCompressedSize);  // 0: the whole payload
            if (stored == 0 || stored > payload) stored = payload;
            e.text = decompress(entry.subspan(entry_header, stored), field<std::uint64_t>(entry, kEntryFlags),
                                field<std::uint64_t>(entry, kEntryDecompressedSize), at);
            out.push_back(std::move(e));
        }
        at += entry_header + payload;
    }
    return out;
}

std::vector<PtxEntry> read_registered_fatbin(const void* wrapper)
{
    struct Wrapper {  // fatbinary_section.h's __fatBinC_Wrapper_t
        std::uint32_t magic, version;
        const unsigned char* data;
        const void* filename_or_fatbins;
    };
    if (!wrapper) throw FatbinError("fat binary: a null wrapper was registered");
    Wrapper w;
    std::memcpy(&w, wrapper, sizeof w);
    if (w.magic != kFatbinWrapperMagic)
        throw FatbinError("fat binary: the registered wrapper's magic is " + hex(w.magic) + ", not " + hex(kFatbinWrapperMagic));
    if (!w.data) throw FatbinError("fat binary: the registered wrapper points at no data");
    const std::span<const unsigned char> header(w.data, kHeaderBytes);
    if (field<std::uint32_t>(header, 0) != kFatbinMagic) return read_fatbin(header);  // the magic's one-line error
    const std::uint64_t size = field<std::uint16_t>(header, 6) + field<std::uint64_t>(header, 8);
    if (size > kMaxPtxBytes * 4) throw FatbinError("fat binary: its header gives " + std::to_string(size) + " bytes");
    return read_fatbin(std::span<const unsigned char>(w.data, size));
}

}  // namespace wl::cudart
