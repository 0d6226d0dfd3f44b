#pragma once

namespace arlab {

int run_tune(int argc, char** argv);

}  // namespace arlab
