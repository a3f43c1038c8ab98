"""The Python side of RASR (Sprint): ``returnn.sprint.interface`` (the functions RASR's Python trainer calls)."""
