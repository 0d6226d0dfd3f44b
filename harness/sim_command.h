// `arlab sim` (sim_command.cpp): the simulator (simulator.h) on a network (sim_network.h).
#pragma once

namespace arlab {

int run_sim(int argc, char** argv);

}  // namespace arlab
