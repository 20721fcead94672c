"""Perception from the camera: cards, raised hands and the token, as timed events.

The only package that imports mediapipe.
"""
