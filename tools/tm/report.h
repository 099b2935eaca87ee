/* tm command line: the statistics reports (tm/report.h) and --profile-window. */
#ifndef TM_TOOLS_REPORT_H
#define TM_TOOLS_REPORT_H

#include <stdint.h>
#include "tm/report.h"

/* --profile-window V: 0 with *OUT, or -1 after one line of SUB. */
int report_profile_window(const char *sub, const char *v, uint64_t *out);
#define REPORT_PROFILE_WINDOW TM_REPORT_PROFILE_WINDOW

#endif
