// The time panel's "then and now": the speed-ups over the previous version a source deck printed
// for its GPU beside the recorded ones, version by version
// (results/published/, labs/common/published.h).
#pragma once

namespace warplab::viewer {

struct App;

// Whether the current lab has a published table to set beside the recording.
bool has_published(const App& app);
// The index among the lab's published tables that the chart shows: the one picked, else the
// table of the deck its versions follow (Lab::published_source), else the first that names its GPU.
int shown_published(const App& app);
// A picker of the lab's published tables, then one pair of bars a rung (one version to the next): the
// published GPU's speed-up, then the recording's (at the published n where
// one was recorded), for the same two versions.
void then_and_now(App& app);

}  // namespace warplab::viewer
