"""airqueue against ns-3 3.44 on identical scenarios: ``python -m validation.ns3``."""
