report tests/cases/reliability/wrong-kind.txt tests/cases/reliability/wrong-kind.bin
