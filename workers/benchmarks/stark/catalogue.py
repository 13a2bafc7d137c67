"""STARK task catalogue: every task id, its tier, family and answer shape.

Task ids are the `--dataset` names of STARK's `main.py` (nesl/STARK_Benchmark), so results can
be compared with the paper's tables. Release folders (`data_final_v5`) map onto them below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Tier 1: sensor modality -> (localization task id, tracking task id)
MODALITIES: dict[str, tuple[str, str]] = {
    "range": ("loc_range", "track_range_online"),
    "bearing": ("loc_bearing", "track_bearing_online"),
    "range_bearing": ("loc_range_bearing", "track_range_bearing_online"),
    "region": ("loc_region", "track_region_online"),
    "event_temp": ("loc_event_temp", "track_event_temp_online"),
    "event_spatio": ("loc_event_spatio", "track_event_spatio_online"),
    "event_spatio_temp": ("loc_event_spatio_temp", "track_event_spatiotemp_online"),
}
FIELD_TASKS = (
    "spatial_impute",
    "temporal_impute",
    "spatiotemporal_impute",
    "spatiotemporal_forecast",
)

GEOMETRIES = ("Point", "Linestring", "Polygon")
# The 37 spatial (geometry, geometry, predicate) tasks of the release (tier2_v2_spatial).
SPATIAL_TASKS = (
    "Point_Point_equals",
    "Point_Point_intersects",
    "Point_Point_contains",
    "Point_Point_within",
    "Point_Linestring_intersects",
    "Point_Linestring_within",
    "Point_Linestring_touches",
    "Point_Polygon_intersects",
    "Point_Polygon_within",
    "Point_Polygon_touches",
    "Linestring_Point_intersects",
    "Linestring_Point_contains",
    "Linestring_Point_touches",
    "Linestring_Linestring_equals",
    "Linestring_Linestring_intersects",
    "Linestring_Linestring_contains",
    "Linestring_Linestring_within",
    "Linestring_Linestring_crosses",
    "Linestring_Linestring_touches",
    "Linestring_Linestring_overlaps",
    "Linestring_Polygon_intersects",
    "Linestring_Polygon_within",
    "Linestring_Polygon_crosses",
    "Linestring_Polygon_touches",
    "Polygon_Point_intersects",
    "Polygon_Point_contains",
    "Polygon_Point_touches",
    "Polygon_Linestring_intersects",
    "Polygon_Linestring_contains",
    "Polygon_Linestring_crosses",
    "Polygon_Linestring_touches",
    "Polygon_Polygon_equals",
    "Polygon_Polygon_intersects",
    "Polygon_Polygon_contains",
    "Polygon_Polygon_within",
    "Polygon_Polygon_touches",
    "Polygon_Polygon_overlaps",
)
# Allen's 13 relations, named as in STARK's allen_interval_algebra.py.
TEMPORAL_TASKS = (
    "precedes",
    "is_preceded_by",
    "meets",
    "is_met_by",
    "overlaps_with",
    "is_overlapped_by",
    "starts",
    "is_started_by",
    "during",
    "contains",
    "finishes",
    "finished_by",
    "is_equal_to",
)
# Spatio-temporal: trajectory-vs-geometry event (sim_lib_st_v2.sub_spatial_relationship) x
# the 7 temporal relations STARK samples for it.
ST_SPATIAL = (
    "Linestring_Point_intersects",
    "Linestring_Linestring_equals",
    "Linestring_Linestring_intersects",
    "Linestring_Linestring_contains",
    "Linestring_Linestring_crosses",
    "Linestring_Linestring_touches",
    "Linestring_Linestring_overlaps",
    "Linestring_Polygon_intersects",
    "Linestring_Polygon_within",
    "Linestring_Polygon_crosses",
    "Linestring_Polygon_touches",
)
ST_TEMPORAL = ("precedes", "meets", "overlaps_with", "starts", "during", "finishes", "is_equal_to")
# The release has 71 of the 77 pairs: an instantaneous "touches" event is never paired with
# during, finishes or overlaps_with.
SPATIOTEMPORAL_TASKS = tuple(
    f"{s}-{t}"
    for s in ST_SPATIAL
    for t in ST_TEMPORAL
    if not (s.endswith("touches") and t in ("during", "finishes", "overlaps_with"))
)
WORLD_TASKS = (
    "direction_questions",
    "intent_pred",
    "landmark_questions",
    "poi_pred",
    "route_planning",
    "subroute_duration",
    "travel_questions",
)

# STARK's stand-in for an unparseable tier-1 answer (distance.handle_nan_values): the centre of
# the 10 x 10 area, or t = 5 for the time-only tasks.
FALLBACK_TIME = (5.0,)
FALLBACK_XY = (5.0, 5.0)

# STARK evaluates the first `ts_len` steps of an online tracking task (arguments.py default).
TRACKING_STEPS = 10


@dataclass(frozen=True)
class TaskInfo:
    task: str
    tier: int
    family: str  # localization | tracking | field | spatial | temporal | spatiotemporal | world_knowledge
    answer_dim: int = 1  # numbers per (step of an) answer; 1 for the yes/no tiers

    @property
    def is_tier1(self) -> bool:
        return self.tier == 1


def _build() -> dict[str, TaskInfo]:
    table: dict[str, TaskInfo] = {}
    for modality, (loc, track) in MODALITIES.items():
        dim = 1 if modality == "event_temp" else 3 if modality == "event_spatio_temp" else 2
        table[loc] = TaskInfo(loc, 1, "localization", dim)
        table[track] = TaskInfo(track, 1, "tracking", dim)
    for name in FIELD_TASKS:
        table[name] = TaskInfo(name, 1, "field", 0)  # 0: as many values as the ground truth has
    for name in SPATIAL_TASKS:
        table[name] = TaskInfo(name, 2, "spatial")
    for name in TEMPORAL_TASKS:
        table[name] = TaskInfo(name, 2, "temporal")
    for name in SPATIOTEMPORAL_TASKS:
        table[name] = TaskInfo(name, 2, "spatiotemporal")
    for name in WORLD_TASKS:
        table[name] = TaskInfo(name, 3, "world_knowledge")
    return table


TASKS: dict[str, TaskInfo] = _build()
FAMILIES = (
    "localization",
    "tracking",
    "field",
    "spatial",
    "temporal",
    "spatiotemporal",
    "world_knowledge",
)


def task_info(task: str) -> TaskInfo:
    try:
        return TASKS[task]
    except KeyError:
        raise ValueError(f"task: unknown STARK task {task!r}") from None


def fallback_answer(task: str) -> tuple[float, ...] | None:
    """STARK's replacement for an unparseable tier-1 loc/track answer (None elsewhere)."""
    info = task_info(task)
    if info.family not in ("localization", "tracking"):
        return None
    return FALLBACK_TIME if info.answer_dim == 1 else FALLBACK_XY


_SENSOR_DIR = re.compile(
    r"^(localization|tracking)_(range_bearing|range|bearing|region|event_temp|"
    r"event_spatio_temp|event_spatio)_(.+)$"
)


def parse_sensor_folder(folder: str) -> tuple[str, str, str] | None:
    """`localization_range_0.01` -> ("loc_range", "range", "0.01"); None if not a tier-1 folder."""
    match = _SENSOR_DIR.match(folder)
    if not match:
        return None
    kind, modality, noise = match.groups()
    loc, track = MODALITIES[modality]
    return (loc if kind == "localization" else track), modality, noise


def sensor_folder(task: str, noise: str) -> str:
    """Inverse of `parse_sensor_folder`: the release folder name for a tier-1 sensor task."""
    for modality, (loc, track) in MODALITIES.items():
        if task in (loc, track):
            kind = "localization" if task == loc else "tracking"
            return f"{kind}_{modality}_{noise}"
    raise ValueError(f"task: {task!r} is not a localization/tracking task")


def modality_of(task: str) -> str:
    for modality, pair in MODALITIES.items():
        if task in pair:
            return modality
    raise ValueError(f"task: {task!r} is not a localization/tracking task")
