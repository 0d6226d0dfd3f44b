// `arlab fit` (fit_command.cpp), the computations in fit.h.
#pragma once

namespace arlab {

int run_fit(int argc, char** argv);

}  // namespace arlab
