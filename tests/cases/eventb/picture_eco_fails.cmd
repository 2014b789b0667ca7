eventb examples/eventb/heater_eco.yaml --robustify preserving --svg /dev/null
