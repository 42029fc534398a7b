# Labs (docs/labs.md): build one stage's library from a student's folder instead of the solution.
#
#   cmake -S . -B build-lab02 -DSORTLAB_LAB_STAGE=02 -DSORTLAB_LAB_DIR=/path/to/lab02
#
# The folder is what `make lab STAGE=02 DIR=...` wrote (tools/lab/make_lab.py): the stage's
# sources with the marked regions left to write. The stage's library compiles the folder's
# sources, and everything that includes "chapters/02_coalesced_sort/..." (the library, the stage's
# tests, the sortlab tool) sees the folder's headers, so the stage's own tests grade the student's
# code. Every other stage stays the solution.

set(SORTLAB_LAB_STAGE "" CACHE STRING "Lab: the stage (01..04) to build from SORTLAB_LAB_DIR")
set(SORTLAB_LAB_DIR "" CACHE PATH "Lab: a student's folder written by `make lab`")

if(SORTLAB_LAB_STAGE OR SORTLAB_LAB_DIR)
  if(NOT SORTLAB_LAB_STAGE MATCHES "^0[1-4]$")
    message(FATAL_ERROR "SORTLAB_LAB_STAGE must be one of 01, 02, 03, 04 (got "
                        "'${SORTLAB_LAB_STAGE}'); it names the stage SORTLAB_LAB_DIR holds")
  endif()
  if(NOT SORTLAB_LAB_DIR)
    message(FATAL_ERROR "SORTLAB_LAB_STAGE=${SORTLAB_LAB_STAGE} needs SORTLAB_LAB_DIR, the folder "
                        "`make lab STAGE=${SORTLAB_LAB_STAGE} DIR=...` wrote")
  endif()
  get_filename_component(SORTLAB_LAB_DIR "${SORTLAB_LAB_DIR}" ABSOLUTE)
  if(NOT IS_DIRECTORY "${SORTLAB_LAB_DIR}")
    message(FATAL_ERROR "SORTLAB_LAB_DIR=${SORTLAB_LAB_DIR} is not a folder")
  endif()
endif()

# Makes "chapters/<stage_folder>/..." resolve to the files in <source_dir>: a folder
# <tree>/chapters/<stage_folder> that links to <source_dir>. Put <tree> on a target's include path
# before the repository root and its quoted includes of the stage's headers find the student's.
function(sortlab_lab_include_tree tree stage_folder source_dir)
  file(MAKE_DIRECTORY "${tree}/chapters")
  file(REMOVE "${tree}/chapters/${stage_folder}")
  file(CREATE_LINK "${source_dir}" "${tree}/chapters/${stage_folder}" SYMBOLIC)
endfunction()

# Called by each lab stage's CMakeLists right after its add_library: when the lab is this stage,
# the library compiles the student's files of the same names, and the library and everything that
# links it include the student's headers first.
function(sortlab_lab_sources target stage)
  if(NOT SORTLAB_LAB_STAGE STREQUAL "${stage}")
    return()
  endif()
  get_target_property(solution_sources ${target} SOURCES)
  set(lab_sources "")
  foreach(source IN LISTS solution_sources)
    get_filename_component(name "${source}" NAME)
    if(NOT EXISTS "${SORTLAB_LAB_DIR}/${name}")
      message(FATAL_ERROR "SORTLAB_LAB_DIR=${SORTLAB_LAB_DIR} has no ${name}: is it the folder "
                          "`make lab STAGE=${stage}` wrote?")
    endif()
    list(APPEND lab_sources "${SORTLAB_LAB_DIR}/${name}")
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${lab_sources})
  get_filename_component(stage_folder "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  set(tree "${CMAKE_BINARY_DIR}/lab_include")
  sortlab_lab_include_tree("${tree}" "${stage_folder}" "${SORTLAB_LAB_DIR}")
  # Made again before every build: without the link, the includes would quietly find the
  # solution's headers and grade the solution instead of the student's work.
  add_custom_target(sortlab_lab_include_tree
    COMMAND ${CMAKE_COMMAND} -E make_directory "${tree}/chapters"
    COMMAND ${CMAKE_COMMAND} -E create_symlink "${SORTLAB_LAB_DIR}" "${tree}/chapters/${stage_folder}"
    COMMENT "Lab: chapters/${stage_folder} -> ${SORTLAB_LAB_DIR}")
  add_dependencies(${target} sortlab_lab_include_tree)
  target_include_directories(${target} BEFORE PUBLIC "${tree}")
  message(STATUS "Lab: stage ${stage} (${target}) is built from ${SORTLAB_LAB_DIR}")
endfunction()
