"""The CommonRoad vehicle models and their simulation daemon (issue 8).

A faithful port of the CommonRoad vehicle models (Althoff & Würsching,
"CommonRoad: Vehicle Models", 2020; reference implementation
``commonroad-vehicle-models`` 3.0.2) onto Skidpad's strict math:

* ``ks``   kinematic single-track, 5 states (rear-axle reference point)
* ``st``   dynamic single-track, 7 states
* ``std``  single-track drift with Pacejka tires, 9 states
* ``mb``   multi-body, 29 states
* ``ks_cog`` the kinematic helper about the CoG the others fall back to

``params`` loads the reference's vehicles 1-3 from data files; ``daemon``
wraps a model with controllers, powertrain, safety and a fixed-step RK4
integrator behind ``step(inputs, dt)``; ``scripted`` holds the fixed 30 s
drives whose final state hashes join the golden hashes.
"""
