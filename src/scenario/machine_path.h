/* machine_path: where pmlab looks for a machine file named by a scenario,
 * trace whatif --machine or import's nearest shipped machine, and which
 * directory pmlab machines lists; one place for the order pmlab(1) FILES
 * documents, so that every command finds the same file. */
#ifndef PMLAB_SCENARIO_MACHINE_PATH_H
#define PMLAB_SCENARIO_MACHINE_PATH_H

/* The colon-separated directories to search for NAME.ini, in order:
 * each directory of $PMLAB_MACHINES (an empty variable adds none), then
 * machines/ and ../machines in scenario_path's directory (only when
 * scenario_path is not NULL), then ./machines, then the installed
 * PREFIX/share/pmlab/machines. Never NULL; the caller frees it (hand it to
 * hw_machine_find_path, and name it in "not found" messages). */
char *scn_machine_search_path(const char *scenario_path);

/* The directories pmlab machines lists by default, colon-separated: those
 * of $PMLAB_MACHINES when set, else ./machines when it exists (a checkout),
 * else the installed machines. Never NULL; the caller frees it. */
char *scn_machine_list_dirs(void);

/* The installed machines' directory, PREFIX/share/pmlab/machines (PREFIX as
 * make compiled it in); a static string. */
const char *scn_machine_installed_dir(void);

#endif
