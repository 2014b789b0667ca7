/* LTSA-Robust's own JSON configs, read as robustness configs:
 *   {"mode": "fsp", "sys": ..., "env": ..., "prop": ..., "deviation": ...}
 *   {"mode": "eofm", "sys": ..., "env": "human.xml", "prop": ...,
 *    "eofm": {"initialValues": {...}, "world": [...], "relabels": {...}}}
 * The reference tool resolves their paths against the directory it runs
 * from; here a path is tried against the config's directory and then each
 * of its ancestors, the first existing file wins. docs/eofm.md. */
#ifndef APPS_REFERENCE_CONFIG_H
#define APPS_REFERENCE_CONFIG_H

#include "apps/fsp_config.h"
#include "ism/ydoc.h"

/* Whether the config's root is a reference config (it has "mode"). */
bool reference_config_is(const ynode_t *root);

/* The equivalent robustness config (system/environment/property/deviation,
 * an EOFM environment for mode eofm), its nodes in c's arena and located
 * where the JSON has them; paths rewritten relative to the config's
 * directory. Returns NULL after reporting a located error. */
ynode_t *reference_config_translate(fsp_config_t *c, const ynode_t *root);

#endif
