verify
