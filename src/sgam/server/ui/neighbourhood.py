"""A subject's neighbourhood drawn as SVG: the subject in the middle, every subject one
relation away on a ring around it, an arrow per direction (outward: the subject's
relation names the neighbour; inward: the neighbour's relation names the subject) labelled
with the relations' names. Pure geometry, like ``timeline``: the template prints it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH = 720
HEIGHT = 420
RING = 150
"""Distance from the centre to a neighbour's node, in pixels."""
NODE_WIDTH = 150
NODE_HEIGHT = 34
MAX_NEIGHBOURS = 24
"""More than this and the picture is unreadable: the rest are listed in the tables only."""
LABEL_CHARS = 18
NARROW_WIDTH = 360
"""The phone-width picture: drawn 1:1 on a 390 px screen, so labels keep their size."""
NARROW_ROW = 64


@dataclass(frozen=True, slots=True)
class Edge:
    """One relation between the subject and a neighbour, seen from the subject."""

    attribute: str
    neighbour: str
    outward: bool


@dataclass(frozen=True, slots=True)
class Node:
    subject: str
    label: str
    x: float
    y: float
    centre: bool = False


@dataclass(frozen=True, slots=True)
class Link:
    """The line between the centre and one neighbour; arrowheads by direction."""

    x1: float
    y1: float
    x2: float
    y2: float
    label: str
    label_x: float
    label_y: float
    outward: bool
    inward: bool
    neighbour: str


@dataclass(frozen=True, slots=True)
class Picture:
    width: int
    height: int
    nodes: list[Node]
    links: list[Link]
    left_out: int
    """Neighbours not drawn (past ``MAX_NEIGHBOURS``)."""


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _clipped(x: float, y: float, towards_x: float, towards_y: float) -> tuple[float, float]:
    """Where the segment from a node's centre towards a point leaves the node's box, so an
    arrowhead ends at the box's edge instead of under its label."""
    dx, dy = towards_x - x, towards_y - y
    if dx == 0 and dy == 0:
        return x, y
    half_w, half_h = NODE_WIDTH / 2 + 4, NODE_HEIGHT / 2 + 4
    scale = min(half_w / abs(dx) if dx else math.inf, half_h / abs(dy) if dy else math.inf)
    return x + dx * scale, y + dy * scale


def draw(subject: str, names: dict[str, str], edges: list[Edge], *, narrow: bool = False) -> Picture:
    """``edges`` seen from ``subject``; ``names`` gives the label of each subject id.
    ``narrow``: the phone-width picture, the subject on the left and its neighbours in a
    column on the right, each relation's name over its neighbour."""
    neighbours = list(dict.fromkeys(edge.neighbour for edge in edges))
    shown, left_out = neighbours[:MAX_NEIGHBOURS], max(0, len(neighbours) - MAX_NEIGHBOURS)
    width = NARROW_WIDTH if narrow else WIDTH
    height = max(2 * NARROW_ROW, 24 + NARROW_ROW * len(shown)) if narrow else HEIGHT
    cx, cy = (NODE_WIDTH / 2 + 10, height / 2) if narrow else (WIDTH / 2, HEIGHT / 2)
    nodes = [Node(subject, _short(names.get(subject, subject)), cx, cy, centre=True)]
    links = []
    for index, neighbour in enumerate(shown):
        if narrow:
            x, y = width - NODE_WIDTH / 2 - 10, 24 + NARROW_ROW * index + NARROW_ROW / 2
        else:
            angle = -math.pi / 2 + 2 * math.pi * index / len(shown)
            x, y = round(cx + RING * 1.6 * math.cos(angle), 1), round(cy + RING * math.sin(angle), 1)
        nodes.append(Node(neighbour, _short(names.get(neighbour, neighbour)), x, y))
        between = [edge for edge in edges if edge.neighbour == neighbour]
        start, end = _clipped(cx, cy, x, y), _clipped(x, y, cx, cy)
        label = ", ".join(dict.fromkeys(edge.attribute for edge in between))
        label_x, label_y = ((x, y - NODE_HEIGHT / 2 - 6) if narrow
                            else ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 - 4))
        links.append(Link(
            round(start[0], 1), round(start[1], 1), round(end[0], 1), round(end[1], 1), _short(label),
            round(label_x, 1), round(label_y, 1),
            outward=any(edge.outward for edge in between), inward=any(not edge.outward for edge in between),
            neighbour=neighbour,
        ))
    return Picture(width, round(height), nodes, links, left_out)
