// `arlab plot RESULTS... -o DIR` (plot_command.cpp).
#pragma once

namespace arlab {

int run_plot(int argc, char** argv);

}  // namespace arlab
