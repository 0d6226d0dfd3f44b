# Run at every build (the arlab_git_commit target), not only at configure time: writes
# OUTPUT with ARLAB_GIT_COMMIT, the checkout's commit, "-dirty" when tracked files differ from
# it, so a results header never names a commit its binary was not built from. The file is
# rewritten only when that changes, so an unchanged tree recompiles nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    set(commit "${commit}-dirty")
  endif()
endif()
set(text "// Generated at build time by cmake/git_commit.cmake.\n#pragma once\n#define ARLAB_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
