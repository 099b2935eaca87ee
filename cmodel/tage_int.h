/* tm — what cmodel/tage.c shows its tests beyond tm/tage.h. */
#ifndef TM_TAGE_INT_H
#define TM_TAGE_INT_H

#include "tm/tage.h"

/* Whether P's history pushes use PEXT and PDEP (ON, the default: where the
 * processor has BMI2 and no two tables have one history length) or the
 * byte tables (the same words, as on a processor without), from now on
 * (resets included): what is used now.  The words do not change with it
 * (tests/unit/test_tage.c runs both side by side). */
int tm_tage_use_bmi2(tm_tage *p, int on);

#endif
