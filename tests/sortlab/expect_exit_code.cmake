# Runs PROGRAM with ARGS ('|'-separated) and fails unless it exits with EXPECTED_EXIT and, when
# EXPECTED_OUTPUT is set, its stdout + stderr match that regular expression.
# Usage: cmake -DPROGRAM=... -DARGS=a|b|c -DEXPECTED_EXIT=2 [-DEXPECTED_OUTPUT=regex] -P this
string(REPLACE "|" ";" arguments "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${arguments}
                RESULT_VARIABLE exit_code OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
if(NOT exit_code STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "`${PROGRAM} ${ARGS}` exited with ${exit_code}, expected ${EXPECTED_EXIT}")
endif()
if(DEFINED EXPECTED_OUTPUT AND NOT output MATCHES "${EXPECTED_OUTPUT}")
  message(FATAL_ERROR "the output of `${PROGRAM} ${ARGS}` does not match '${EXPECTED_OUTPUT}'")
endif()
