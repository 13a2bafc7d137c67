# ruff: noqa: E501
"""STARK tier-2 prompt text, verbatim from the release (data_final_v5, BSD-3-Clause).

The generators fill these in; a test checks that they reproduce the release's queries exactly.
"""

CONTEXT_SPATIAL = "\nHelp me answer question regarding spatial relationship in a 2D plane:\n\nGiven Information:\n    You will be provided with geometric information involving three types of 2D geometries—Point, LineString, and Polygon—all defined using the ESRI (Environmental Systems Research Institute) geometric format. These geometries are expressed as lists of coordinates in a Cartesian plane.\n\n    Point: A single coordinate location in space, defined as a tuple: \n    \n    [(x, y)].\n\n    LineString: A sequence of points that forms a continuous line. It is represented as an ordered list of coordinate pairs: \n    \n    [(x_1, y_1), (x_2, y2), ... (x_n, y_n)].\n\n   Polygon: A closed shape formed by a sequence of coordinate pairs where the first and last points are the same to close the loop:\n    \n    [(x_1, y_1), (x_2, y2), ... (x_n, y_n), (x_1, y_1)].\n\n    Spatial Relationships (based on ArcGIS model) is as follows. During computation, you should account for floating-point precision with a numerical tolerance. For instance, 'Equals' should return True not just for exact mathematical identity, but if two geometries are identical within this tolerance.\n\n    ArcGIS defines spatial relationships as logical conditions between geometric objects:\n\n    1. Equals: Returns True if two geometries represent the same shape and location.\n    2. Intersects: Returns True if the geometries share any portion of space, including edges or points.\n    3. Contains: Returns True if one geometry completely encloses another.\n    4. Within: The reverse of Contains. Returns True if the first geometry lies completely inside the second.\n    5. Crosses: Returns True if the geometries intersect in a way where they share some interior points but are of different dimensions (e.g., a line crossing another line or a line crossing a polygon).\n    6. Touches: Returns True if the geometries share only a boundary or a point but no interior space.\n    7. Overlaps: Returns True if the geometries share some, but not all, interior points, and are of the same dimension.\n\n\n"

CONTEXT_TEMPORAL = "\nHelp me answer question regarding temporal relationship:\n\nGiven Information:\n    You will be provided with intervals defined by (x_i, y_i).\n\n    x_i and x_i are non negative numbers.\n\n    Temporal Relationships (based on Allen's interval algebra):\n\n\t1.\tBefore (A before B): A ends before B starts.\n\t2.\tAfter (A after B): A starts after B ends.\n\t3.\tMeets (A meets B): A ends exactly when B starts.\n\t4.\tMet-By (A met-by B): A starts exactly when B ends.\n\t5.\tOverlaps (A overlaps B): A starts before B starts, and ends after B starts but before B ends.\n\t6.\tOverlapped-By (A overlapped-by B): A starts after B starts, and ends after B ends but before A ends.\n\t7.\tStarts (A starts B): A and B start at the same time, but A ends before B ends.\n\t8.\tStarted-By (A started-by B): A and B start at the same time, but A ends after B ends.\n\t9.\tDuring (A during B): A starts after B starts and ends before B ends.\n\t10.\tContains (A contains B): A starts before B starts and ends after B ends.\n\t11.\tFinishes (A finishes B): A and B end at the same time, but A starts after B starts.\n\t12.\tFinished-By (A finished-by B): A and B end at the same time, but A starts before B starts.\n\t13.\tEquals (A equals B): A and B start and end at the same time.\n\n\n"

CONTEXT_SPATIOTEMPORAL = "\nHelp me answer question regarding spatial relationship in a 2D plane:\n\nGiven Information:\n\n    You will receive a series of object trajectory and the corresponding timestamps of the coordinates in the trajectory. You can treat the trajectory as linestring.\n\n    Sensor A: [(x_1, y_1), (x_2, y_2), ..., (x_n, y_n)]\n\n    Timestamp: [t1, t2, ..., tn]\n\n    You will be provided with geometric information involving three types of 2D geometries—Point, LineString, and Polygon—all defined using the ESRI (Environmental Systems Research Institute) geometric format. These geometries are expressed as lists of coordinates in a Cartesian plane.\n\n    Point: A single coordinate location in space, defined as a tuple: \n    \n    [(x, y)].\n\n    LineString: A sequence of points that forms a continuous line. It is represented as an ordered list of coordinate pairs: \n    \n    [(x_1, y_1), (x_2, y2), ... (x_n, y_n)].\n\n   Polygon: A closed shape formed by a sequence of coordinate pairs where the first and last points are the same to close the loop:\n    \n    [(x_1, y_1), (x_2, y2), ... (x_n, y_n), (x_1, y_1)].\n\n    Spatial Relationships (based on ArcGIS model) is as follows. During computation, you should account for floating-point precision with a numerical tolerance. For instance, 'Equals' should return True not just for exact mathematical identity, but if two geometries are identical within this tolerance.\n\n    ArcGIS defines spatial relationships as logical conditions between geometric objects:\n\n    1. Equals: Returns True if two geometries represent the same shape and location.\n    2. Intersects: Returns True if the geometries share any portion of space, including edges or points.\n    3. Contains: Returns True if one geometry completely encloses another.\n    4. Within: The reverse of Contains. Returns True if the first geometry lies completely inside the second.\n    5. Crosses: Returns True if the geometries intersect in a way where they share some interior points but are of different dimensions (e.g., a line crossing another line or a line crossing a polygon).\n    6. Touches: Returns True if the geometries share only a boundary or a point but no interior space.\n    7. Overlaps: Returns True if the geometries share some, but not all, interior points, and are of the same dimension.\n\n    Temporal Relationships (based on Allen's interval algebra):\n\n\t1.\tBefore (A before B): A ends before B starts.\n\t2.\tAfter (A after B): A starts after B ends.\n\t3.\tMeets (A meets B): A ends exactly when B starts.\n\t4.\tMet-By (A met-by B): A starts exactly when B ends.\n\t5.\tOverlaps (A overlaps B): A starts before B starts, and ends after B starts but before B ends.\n\t6.\tOverlapped-By (A overlapped-by B): A starts after B starts, and ends after B ends but before A ends.\n\t7.\tStarts (A starts B): A and B start at the same time, but A ends before B ends.\n\t8.\tStarted-By (A started-by B): A and B start at the same time, but A ends after B ends.\n\t9.\tDuring (A during B): A starts after B starts and ends before B ends.\n\t10.\tContains (A contains B): A starts before B starts and ends after B ends.\n\t11.\tFinishes (A finishes B): A and B end at the same time, but A starts after B starts.\n\t12.\tFinished-By (A finished-by B): A and B end at the same time, but A starts before B starts.\n\t13.\tEquals (A equals B): A and B start and end at the same time.\n\n"

RETURN_FORMAT = "Output Format:\n    Your response **must** include the answer (0 or 1) in the following format:\n\n    [RESULTS_START] [p] [RESULTS_END]\n\n    You may include explanatory text elsewhere in your response. However, do not include any text or additional formatting between [RESULTS_START] and [RESULTS_END].\n\nExample:\n\n    [RESULTS_START] [1] [RESULTS_END]\n"

OBJECTIVE_SPATIAL = (
    "Objective:\n\nDetermine whether the {geo1} has the spatial relationship **{relate}** with the {geo2}?"
    "\n\nAnswer 1 if answer is Yes. Otherwise, answer 0.\n\n\n"
)
OBJECTIVE_TEMPORAL = (
    "Objective:\n\nDetermine whether the time interval {geo1} has the temporal relationship **{relate}** "
    "with the time interval {geo2}?\n\nAnswer 1 if answer is Yes. Otherwise, answer 0.\n\n\n"
)
OBJECTIVE_SPATIOTEMPORAL = (
    "Objective:\n\nDetermine whether the time interval during which the EVENT holds has the temporal "
    "relationship **{temporal}** with the reference interval {interval_2}?\n"
    "EVENT: the following object trajectory has the spatial relationship **{spatial}** with {geo2}\n\n"
    "For any interaction between a trajectory and a fixed geometry, whether that geometry is another "
    'LineString, a Point, or a Polygon, define the "event interval" as follows:\n\n'
    "1. Pick a trajectory segment and a predicate.\n"
    "2. Project the segment endpoints back to their timestamps.  For each contiguous satisfying segment, "
    "let t_1 be the time at the segment\u2019s first vertex and t_2 be the time at its last vertex.\n"
    "3. Define the event interval as the union of all **[t_1, t_2]** intervals in which the predicate is true.\n"
    "4. Do not include portions of the trajectory before the relationship begins or after it ends. "
    "Do not interpolate.\n\nAnswer 1 if answer is Yes. Otherwise, answer 0.\n\n"
    "Object trajectory: {trajectory}\nTimestamp: {timestamps}\n\n\n"
)


def coords_str(coords) -> str:
    """STARK's geometry text: `[(x, y), ...]` with 4 decimals (sim_lib_st_v2.coords_to_string)."""
    return "[" + ", ".join(f"({x:.4f}, {y:.4f})" for x, y in coords) + "]"


def interval_str(iv) -> str:
    return f"({iv[0]:.4f}, {iv[1]:.4f})"


def spatial_query(geo1_type: str, coords1, relate: str, geo2_type: str, coords2) -> str:
    objective = OBJECTIVE_SPATIAL.format(
        geo1=f"{geo1_type} {coords_str(coords1)}",
        relate=relate,
        geo2=f"{geo2_type} {coords_str(coords2)}",
    )
    return CONTEXT_SPATIAL + objective + RETURN_FORMAT


def temporal_query(iv1, relate: str, iv2) -> str:
    objective = OBJECTIVE_TEMPORAL.format(
        geo1=interval_str(iv1), relate=relate, geo2=interval_str(iv2)
    )
    return CONTEXT_TEMPORAL + objective + RETURN_FORMAT


def spatiotemporal_query(
    spatial: str, geo2_type: str, coords2, temporal: str, iv2, trajectory, timestamps
) -> str:
    objective = OBJECTIVE_SPATIOTEMPORAL.format(
        temporal=temporal,
        interval_2=interval_str(iv2),
        spatial=spatial,
        geo2=f"{geo2_type} {coords_str(coords2)}",
        trajectory=coords_str(trajectory),
        timestamps="[" + ", ".join(f"{t:.4f}" for t in timestamps) + "]",
    )
    return CONTEXT_SPATIOTEMPORAL + objective + RETURN_FORMAT
