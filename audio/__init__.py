"""Perception from the microphones: shout onsets, words and speakers, as timed events.

The only package that imports vosk or sounddevice.
"""
