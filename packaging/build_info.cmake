# Writes build_info.h (the version and the commit of the tree being built); run at every build by
# the hearth_build_info target, so a new commit reaches --version without a re-configure.
# configure_file leaves the header untouched when nothing changed, so an unchanged commit
# recompiles nothing.
#   cmake -DSOURCE_DIR=… -DGIT=… -DVERSION=… -DTEMPLATE=… -DOUTPUT=… -P build_info.cmake
set(HEARTH_VERSION "${VERSION}")
set(HEARTH_COMMIT unknown)
if(GIT)
    # Only the source tree's own repository counts: an unpacked tarball inside some other
    # checkout must not report that checkout's commit.
    execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse --show-toplevel
                    OUTPUT_VARIABLE top_level OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE failed ERROR_QUIET)
    file(REAL_PATH "${SOURCE_DIR}" source_dir)
    if(NOT failed AND EXISTS "${top_level}")
        file(REAL_PATH "${top_level}" top_level)
    endif()
    if(NOT failed AND top_level STREQUAL source_dir)
        execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse --short HEAD
                        OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
    if(commit)  # none in a repository without commits
        set(HEARTH_COMMIT "${commit}")
        execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" diff --quiet HEAD --
                        RESULT_VARIABLE dirty)
        if(dirty)
            string(APPEND HEARTH_COMMIT -dirty)
        endif()
    endif()
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
