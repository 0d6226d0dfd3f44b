// The CLI's way to matplotlib: harness/plot.py run by a python3 that has matplotlib
// (ARLAB_PYTHON, else Debian's /usr/bin/python3, else python3 on PATH).
#pragma once

#include <string>
#include <vector>

#include "harness/fit.h"

namespace arlab {

// Runs plot.py with `args`; throws UsageError with plot.py's one-line complaint on failure.
void run_plot_script(const std::vector<std::string>& args);

// Writes `data` beside `png` (png + suffix), runs plot.py `kind` on it into `png`, removes it.
void plot_from_data(const std::string& kind, const std::string& suffix, const std::string& data, const std::string& png);

// Measured times and the fitted curves (time against size per N; the latency series against
// N with its linear and logarithmic lines) into `png`.
void draw_fit(const std::vector<FitGroup>& groups, const std::string& png);

}  // namespace arlab
