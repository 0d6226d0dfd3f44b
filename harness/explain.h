#pragma once

namespace arlab {

int run_explain(int argc, char** argv);

}  // namespace arlab
