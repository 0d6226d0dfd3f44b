// Parsing a subcommand's flags with CLI11: --help prints the help and throws HelpShown,
// any parse error becomes a one-line UsageError.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>

#include "harness/errors.h"

namespace arlab {

struct HelpShown {};

inline void parse_flags(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    throw HelpShown{};
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace arlab
