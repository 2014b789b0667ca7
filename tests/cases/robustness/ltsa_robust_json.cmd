robustness tests/cases/robustness/ltsa_robust/models/abp/abp.json --print 3
