eventb examples/eventb/heater_eco.yaml --robustify preserving
