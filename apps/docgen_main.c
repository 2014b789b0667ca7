#include <stdio.h>

#include "apps/docgen.h"

int main(int argc, char **argv) { return docgen_main(argc, argv, stdout, stderr); }
