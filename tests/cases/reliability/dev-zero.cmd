verify /dev/zero
