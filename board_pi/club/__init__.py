"""Club night: tables on an MQTT broker (Mosquitto) and the director's hub for the whole room.

Opt-in: a table with no ``[club] broker`` works on its own, exactly as before. The parts:
``settings`` (the ``[club]`` settings and broker addresses), ``topics``, ``mqtt`` (the paho-mqtt
client), ``publisher`` (a table on the broker), ``hub`` (every table in one place), ``broker``
(accounts, access list, a local Mosquitto for tests and benchmarks).
"""
