/* tm command line: --profile-window (tools/tm/report.h). */
#include <stdint.h>
#include "cmd.h"
#include "report.h"

int report_profile_window(const char *sub, const char *v, uint64_t *out)
{
    if (tm_parse_u64(v, out) || *out < 1 || *out > TM_PROFILE_MAX_WINDOW) {
        tm_usage(sub, "--profile-window %s: allowed 1..%llu cycles", v, (unsigned long long)TM_PROFILE_MAX_WINDOW);
        return -1;
    }
    return 0;
}
