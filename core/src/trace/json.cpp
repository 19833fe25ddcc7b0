// JSON writer and reader for one traced block (docs/trace-format.md).
#include "warplab/trace/json.h"

#include <array>
#include <charconv>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "warplab/version.h"

namespace wl::trace {

nlohmann::json trace_document_header()
{
    return {{"format", kTraceFormat}, {"format_version", kTraceFormatVersion}, {"warplab", version_text()}};
}

namespace {

using nlohmann::json;

// What a block's "events" hold until write_document writes them (a string no
// trace has: JSON text writes a control character as an escape).
const std::string kEventsWritten = std::string("\x01") + "events written by write_document";

// One active lane of an event, as the JSON lists it: [lane, offset, value[0], value[1]].
std::array<std::uint64_t, 4> lane_fields(const WarpEvent& e, unsigned lane)
{
    return {lane, e.offset[lane], e.value[lane][0], e.value[lane][1]};
}

// An event, its lanes left out where write_document writes them (an empty list holds their place).
json event_to_json(const WarpEvent& e, Events lanes = Events::InJson)
{
    json list = json::array();
    if (lanes == Events::InJson) for_each_lane(e.mask, [&](unsigned lane) { list.push_back(lane_fields(e, lane)); });
    return {{"step", e.step},
            {"warp", e.warp},
            {"line", e.site.line},
            {"file_hash", e.site.file_hash},
            {"kind", kind_name(e.kind)},
            {"space", space_name(e.space)},
            {"size", e.size},
            {"array", e.array},
            {"mask", e.mask},
            {"existing", e.existing},
            {"lanes", std::move(list)}};
}

// A lane number below the trace's width, or an error naming it.
unsigned lane_below(const json& lane, unsigned warp_size)
{
    const unsigned l = lane.get<unsigned>();
    if (l >= warp_size)
        throw std::invalid_argument("lane " + std::to_string(l) + " of a " + std::to_string(warp_size) + "-lane warp");
    return l;
}

// A mask with no lane at or beyond the trace's width, or an error naming it.
LaneMask mask_below(const json& mask, unsigned warp_size)
{
    const LaneMask m = mask.get<LaneMask>();
    if (m & ~first_lanes_mask(warp_size))
        throw std::invalid_argument("mask " + std::to_string(m) + " has lanes beyond a " + std::to_string(warp_size) + "-lane warp");
    return m;
}

WarpEvent event_from_json(const json& j, std::uint32_t block, unsigned warp_size, const std::vector<StepKey>& steps)
{
    WarpEvent e;
    e.block = block;
    e.step = j.at("step").get<std::uint32_t>();
    e.key = steps.at(e.step);
    e.warp = j.at("warp").get<std::uint32_t>();
    e.site = {j.at("file_hash").get<std::uint32_t>(), j.at("line").get<std::uint32_t>()};
    e.kind = kind_from_name(j.at("kind").get<std::string>());
    e.space = space_from_name(j.at("space").get<std::string>());
    e.size = j.at("size").get<std::uint8_t>();
    e.array = j.at("array").get<std::uint8_t>();
    e.mask = mask_below(j.at("mask"), warp_size);
    e.existing = mask_below(j.at("existing"), warp_size);
    for (const json& l : j.at("lanes")) {
        const unsigned lane = lane_below(l.at(0), warp_size);
        e.offset.at(lane) = l.at(1).get<std::uint64_t>();
        e.value.at(lane) = {l.at(2).get<std::uint64_t>(), l.at(3).get<std::uint64_t>()};
    }
    return e;
}

json array_to_json(const SharedArrayInfo& a)
{
    json j = {{"id", a.id}, {"name", a.name}, {"elem_size", a.elem_size}, {"count", a.count}, {"line", a.line}};
    if (!a.type.empty()) j["type"] = a.type;
    if (!a.file.empty()) j["file"] = a.file;
    if (!a.dims.empty()) j["dims"] = a.dims;
    return j;
}

SharedArrayInfo array_from_json(const json& j)
{
    SharedArrayInfo a;
    a.id = j.at("id").get<std::uint8_t>();
    a.name = j.at("name").get<std::string>();
    a.elem_size = j.at("elem_size").get<std::uint32_t>();
    a.count = j.at("count").get<std::uint64_t>();
    a.line = j.at("line").get<std::uint32_t>();
    a.type = j.value("type", std::string());
    a.file = j.value("file", std::string());
    a.dims = j.value("dims", std::vector<std::uint64_t>());
    return a;
}

json shared_stats_to_json(const SharedStats& s)
{
    return {{"requests", s.requests}, {"wavefronts", s.wavefronts}, {"ideal", s.ideal}, {"worst_ways", s.worst_ways}};
}

SharedStats shared_stats_from_json(const json& j)
{
    SharedStats s;
    s.requests = j.at("requests").get<std::uint32_t>();
    s.wavefronts = j.at("wavefronts").get<std::uint32_t>();
    s.ideal = j.at("ideal").get<std::uint32_t>();
    s.worst_ways = j.at("worst_ways").get<double>();
    return s;
}

json global_stats_to_json(const GlobalStats& s)
{
    return {{"requests", s.requests}, {"sectors", s.sectors}, {"ideal", s.ideal}};
}

GlobalStats global_stats_from_json(const json& j)
{
    GlobalStats s;
    s.requests = j.at("requests").get<std::uint32_t>();
    s.sectors = j.at("sectors").get<std::uint32_t>();
    s.ideal = j.at("ideal").get<std::uint32_t>();
    return s;
}

// Constant loads: written where there are any (older documents have none), read as none where absent.
void add_constant_stats(json& j, const ConstantStats& s)
{
    if (s.requests) j["constant_load"] = {{"requests", s.requests}, {"addresses", s.addresses}, {"worst", s.worst}};
}

ConstantStats constant_stats_from_json(const json& j)
{
    ConstantStats s;
    if (!j.contains("constant_load")) return s;
    const json& c = j.at("constant_load");
    s.requests = c.at("requests").get<std::uint32_t>();
    s.addresses = c.at("addresses").get<std::uint32_t>();
    s.worst = c.at("worst").get<std::uint32_t>();
    return s;
}

void add_metrics(json& j, const StepMetrics& m)
{
    j["lines"] = m.lines;
    j["active_threads"] = m.active_threads;
    j["active_warps"] = m.active_warps;
    j["partial_warps"] = m.partial_warps;
    j["shared_load"] = shared_stats_to_json(m.shared_load);
    j["shared_store"] = shared_stats_to_json(m.shared_store);
    j["global_load"] = global_stats_to_json(m.global_load);
    j["global_store"] = global_stats_to_json(m.global_store);
    j["shared_load_ways"] = m.shared_load_ways;
    j["has_barrier_end"] = m.has_barrier_end;
    j["collectives"] = m.collectives;
    add_constant_stats(j, m.constant_load);
}

StepMetrics metrics_from_json(const json& j)
{
    StepMetrics m;
    m.step = j.at("step").get<std::uint32_t>();
    m.key = {j.at("epoch").get<std::uint32_t>(), j.at("sub").get<std::uint32_t>()};
    m.lines = j.at("lines").get<std::vector<std::uint32_t>>();
    m.active_threads = j.at("active_threads").get<std::uint32_t>();
    m.active_warps = j.at("active_warps").get<std::uint32_t>();
    m.partial_warps = j.at("partial_warps").get<std::uint32_t>();
    m.shared_load = shared_stats_from_json(j.at("shared_load"));
    m.shared_store = shared_stats_from_json(j.at("shared_store"));
    m.global_load = global_stats_from_json(j.at("global_load"));
    m.global_store = global_stats_from_json(j.at("global_store"));
    m.shared_load_ways = j.at("shared_load_ways").get<std::vector<double>>();
    m.has_barrier_end = j.at("has_barrier_end").get<bool>();
    m.collectives = j.at("collectives").get<std::uint32_t>();
    m.constant_load = constant_stats_from_json(j);
    return m;
}

// JSON object keys are strings: array ids are written in decimal.
json snapshot_to_json(const SharedSnapshot& s)
{
    json out = json::object();
    for (const auto& [id, elems] : s) {
        json values = json::array();
        for (const auto& v : elems) values.push_back(v ? json(*v) : json(nullptr));
        out[std::to_string(id)] = std::move(values);
    }
    return out;
}

SharedSnapshot snapshot_from_json(const json& j)
{
    SharedSnapshot s;
    for (const auto& [key, values] : j.items()) {
        auto& elems = s[static_cast<std::uint8_t>(std::stoul(key))];
        for (const json& v : values)
            elems.push_back(v.is_null() ? std::nullopt : std::optional<std::uint64_t>(v.get<std::uint64_t>()));
    }
    return s;
}

json step_to_json(std::uint32_t i, StepKey key, const StepMetrics* metrics, const SharedSnapshot* after)
{
    json j = {{"step", i}, {"epoch", key.epoch}, {"sub", key.sub}};
    if (metrics) add_metrics(j, *metrics);
    if (after) j["shared_after"] = snapshot_to_json(*after);
    return j;
}

}  // namespace

Kind kind_from_name(const std::string& name)
{
    if (const std::optional<Kind> k = find_kind(name)) return *k;
    throw std::invalid_argument("unknown event kind: " + name);
}

Space space_from_name(const std::string& name)
{
    if (const std::optional<Space> s = find_space(name)) return *s;
    throw std::invalid_argument("unknown memory space: " + name);
}

json totals_to_json(const Totals& t)
{
    json j = {{"steps", t.steps},
              {"shared_load", shared_stats_to_json(t.shared_load)},
              {"shared_store", shared_stats_to_json(t.shared_store)},
              {"global_load", global_stats_to_json(t.global_load)},
              {"global_store", global_stats_to_json(t.global_store)},
              {"partial_warp_steps", t.partial_warp_steps}};
    add_constant_stats(j, t.constant_load);
    return j;
}

Totals totals_from_json(const json& j)
{
    Totals t;
    t.steps = j.at("steps").get<std::uint32_t>();
    t.shared_load = shared_stats_from_json(j.at("shared_load"));
    t.shared_store = shared_stats_from_json(j.at("shared_store"));
    t.global_load = global_stats_from_json(j.at("global_load"));
    t.global_store = global_stats_from_json(j.at("global_store"));
    t.partial_warp_steps = j.at("partial_warp_steps").get<std::uint32_t>();
    t.constant_load = constant_stats_from_json(j);
    return t;
}

namespace {

// The instruction mix: one object a step, warp and class that issued any.
json mix_to_json(const std::vector<MixCount>& mix)
{
    json list = json::array();
    for (const MixCount& m : mix)
        list.push_back({{"step", m.step}, {"warp", m.warp}, {"class", class_word(m.cls)}, {"count", m.count}});
    return list;
}

std::vector<MixCount> mix_from_json(const json& list)
{
    std::vector<MixCount> mix;
    for (const json& m : list) {
        const std::string word = m.at("class").get<std::string>();
        const std::optional<InstructionClass> cls = find_class(word);
        if (!cls) throw std::invalid_argument("unknown instruction class '" + word + "'");
        mix.push_back({m.at("step").get<std::uint32_t>(), m.at("warp").get<std::uint32_t>(), *cls, m.at("count").get<std::uint64_t>()});
    }
    return mix;
}

}  // namespace

json block_to_json(const BlockTrace& block, const std::vector<StepMetrics>& steps,
                   const std::vector<SharedSnapshot>& shared_after, Events events)
{
    json step_list = json::array();
    for (std::uint32_t i = 0; i < block.steps.size(); ++i)
        step_list.push_back(step_to_json(i, block.steps[i], i < steps.size() ? &steps[i] : nullptr,
                                         i < shared_after.size() ? &shared_after[i] : nullptr));
    json arrays = json::array();
    for (const SharedArrayInfo& a : block.shared_arrays) arrays.push_back(array_to_json(a));
    json j = {{"block", block.block},         {"threads", block.threads},
              {"warp_size", block.warp_size}, {"shared_arrays", std::move(arrays)},
              {"steps", std::move(step_list)}};
    if (!steps.empty()) j["totals"] = totals_to_json(totals(steps));
    if (events == Events::Written) {
        j["events"] = kEventsWritten;
    } else {
        json list = json::array();
        for (const WarpEvent& e : block.events) list.push_back(event_to_json(e));
        j["events"] = std::move(list);
    }
    if (has_mix(block.mix)) j["mix"] = mix_to_json(block.mix);
    return j;
}

namespace {

// The serializer's many small writes gathered into large ones to the stream.
class BufferedOutput : public nlohmann::detail::output_adapter_protocol<char> {
public:
    explicit BufferedOutput(std::ostream& out) : out_(out) { buffer_.reserve(kBytes); }
    ~BufferedOutput() override { flush(); }
    void write_character(char c) override
    {
        buffer_.push_back(c);
        if (buffer_.size() >= kBytes) flush();
    }
    void write_characters(const char* s, std::size_t length) override
    {
        buffer_.append(s, length);
        if (buffer_.size() >= kBytes) flush();
    }
    void flush()
    {
        out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        buffer_.clear();
    }

private:
    static constexpr std::size_t kBytes = std::size_t(1) << 16;
    std::ostream& out_;
    std::string buffer_;
};

// Text as nlohmann's serializer writes it with an indent of one space a level:
// the document's frame, its values, and each event as event_to_json's.
class IndentedWriter {
public:
    explicit IndentedWriter(std::ostream& out)
        : output_(std::make_shared<BufferedOutput>(out)), values_(output_, ' ')
    {
    }

    void value(const json& v, unsigned indent) { values_.dump(v, true, false, 1, indent); }
    void text(std::string_view s) { output_->write_characters(s.data(), s.size()); }
    void line_start(unsigned indent)
    {
        if (spaces_.size() < indent) spaces_.resize(indent, ' ');
        output_->write_characters(spaces_.data(), indent);
    }
    void number(std::uint64_t n)
    {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
        output_->write_characters(digits, static_cast<std::size_t>(end - digits));
    }
    // "key": , at the start of an object's member.
    void key(std::string_view k, unsigned indent)
    {
        line_start(indent);
        value(json(k), indent);
        text(": ");
    }

    // An array or object of `count` elements: write_element(i, indent) writes
    // element i at the next level (its key first, for an object).
    template <class WriteElement>
    void frame(char open, char close, std::size_t count, unsigned indent, WriteElement write_element)
    {
        if (count == 0) {
            const char empty[2] = {open, close};
            text({empty, 2});
            return;
        }
        text(open == '[' ? "[\n" : "{\n");
        for (std::size_t i = 0; i < count; ++i) {
            write_element(i, indent + 1);
            text(i + 1 < count ? ",\n" : "\n");
        }
        line_start(indent);
        output_->write_character(close);
    }

    // An array of numbers, one a line.
    template <std::size_t N> void numbers(const std::array<std::uint64_t, N>& list, unsigned indent)
    {
        frame('[', ']', N, indent, [&](std::size_t i, unsigned at) {
            line_start(at);
            number(list[i]);
        });
    }

private:
    std::shared_ptr<BufferedOutput> output_;
    nlohmann::detail::serializer<json> values_;
    std::string spaces_;
};

// An object's members, in the order it keeps them, as (key, value) pairs.
std::vector<std::pair<const std::string*, const json*>> members(const json& object)
{
    std::vector<std::pair<const std::string*, const json*>> out;
    for (auto it = object.begin(); it != object.end(); ++it) out.emplace_back(&it.key(), &it.value());
    return out;
}

// Writes an object member by member, write_value(key, value, indent) each
// value after its key.
template <class WriteValue>
void write_object(IndentedWriter& w, const json& object, unsigned indent, WriteValue write_value)
{
    const auto list = members(object);
    w.frame('{', '}', list.size(), indent, [&](std::size_t i, unsigned at) {
        w.key(*list[i].first, at);
        write_value(*list[i].first, *list[i].second, at);
    });
}

// An event as event_to_json has it, its lanes written as they are read.
void write_event(IndentedWriter& w, const WarpEvent& e, unsigned indent)
{
    write_object(w, event_to_json(e, Events::Written), indent, [&](const std::string& key, const json& value, unsigned at) {
        if (key != "lanes") return w.value(value, at);
        std::array<unsigned, kMaxWarpSize> lanes;
        std::size_t active = 0;
        for_each_lane(e.mask, [&](unsigned lane) { lanes[active++] = lane; });
        w.frame('[', ']', active, at, [&](std::size_t i, unsigned lane_at) {
            w.line_start(lane_at);
            w.numbers(lane_fields(e, lanes[i]), lane_at);
        });
    });
}

}  // namespace

void write_document(std::ostream& out, const json& document, const BlockTrace& block)
{
    IndentedWriter w(out);
    const auto write_block = [&](const json& b, unsigned indent) {
        write_object(w, b, indent, [&](const std::string& key, const json& value, unsigned at) {
            if (key == "events" && value == kEventsWritten)
                w.frame('[', ']', block.events.size(), at, [&](std::size_t i, unsigned event_at) {
                    w.line_start(event_at);
                    write_event(w, block.events[i], event_at);
                });
            else
                w.value(value, at);
        });
    };
    if (!document.is_object()) return w.value(document, 0);
    write_object(w, document, 0, [&](const std::string& key, const json& value, unsigned at) {
        if (key != "blocks" || !value.is_array()) return w.value(value, at);
        w.frame('[', ']', value.size(), at, [&](std::size_t i, unsigned block_at) {
            w.line_start(block_at);
            if (value[i].is_object()) write_block(value[i], block_at);
            else w.value(value[i], block_at);
        });
    });
}

BlockTrace block_from_json(const json& j)
{
    BlockTrace b;
    b.block = j.at("block").get<std::uint32_t>();
    b.threads = j.at("threads").get<std::uint32_t>();
    b.warp_size = j.value("warp_size", kDefaultWarpSize);  // written since the width became the trace's own
    if (!valid_warp_size(b.warp_size))
        throw std::invalid_argument("warp_size " + std::to_string(b.warp_size) + ": a warp is 32 or 64 lanes");
    for (const json& s : j.at("steps"))
        b.steps.push_back({s.at("epoch").get<std::uint32_t>(), s.at("sub").get<std::uint32_t>()});
    for (const json& a : j.at("shared_arrays")) b.shared_arrays.push_back(array_from_json(a));
    for (const json& e : j.at("events")) b.events.push_back(event_from_json(e, b.block, b.warp_size, b.steps));
    if (j.contains("mix")) b.mix = mix_from_json(j.at("mix"));
    return b;
}

std::vector<StepMetrics> steps_from_json(const json& j)
{
    std::vector<StepMetrics> steps;
    for (const json& s : j.at("steps")) {
        if (!s.contains("active_threads")) break;  // written without metrics
        steps.push_back(metrics_from_json(s));
    }
    return steps;
}

std::vector<SharedSnapshot> shared_after_from_json(const json& j)
{
    std::vector<SharedSnapshot> after;
    for (const json& s : j.at("steps")) {
        if (!s.contains("shared_after")) break;
        after.push_back(snapshot_from_json(s.at("shared_after")));
    }
    return after;
}

}  // namespace wl::trace
