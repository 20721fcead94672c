"""The settings classes refuse values out of their range, naming the class, the field and the
range (issue 32 item 4), and their defaults pass."""

import dataclasses
import re

import pytest

from audio.calls import CallParams
from audio.demix import DemixParams, LagParams, NoisyTriggerParams, SelfFitParams
from audio.unreferenced import UnreferencedParams
from audio.gains import GainParams
from audio.enroll import NoiseParams
from audio.found_inside import FoundParams
from audio.takes import TakeParams
from audio.voice import VoiceParams
from audio.watch import WatchParams
from referee.live.controls import ControlParams
from referee.live.selftest import SelfTestParams
from referee.live.terminal import TerminalParams
from referee.live.window import WindowParams
from referee.teach.ghost import GhostParams
from referee.teach.ladder import LadderParams
from referee.teach.lesson import LessonParams
from referee.teach.scheduler import SchedulerParams
from referee.teach.drills.ikatako_sensed import SensedParams
from vision.camera import CameraParams
from vision.mouth import MouthParams

CHECKED = [CallParams, DemixParams, LagParams, NoisyTriggerParams, UnreferencedParams, NoiseParams, TakeParams,
           VoiceParams, WatchParams, ControlParams, SelfTestParams, TerminalParams, WindowParams, GhostParams,
           LadderParams, LessonParams, SchedulerParams, SensedParams, CameraParams, GainParams, SelfFitParams,
           MouthParams, FoundParams]


@pytest.mark.parametrize("cls", CHECKED, ids=lambda c: c.__name__)
def test_defaults_pass(cls):
    cls()


@pytest.mark.parametrize("cls, name, value, allowed", [
    (DemixParams, "hop", 0, ">= 1"),
    (UnreferencedParams, "agree", 0.0, "> 0"),
    (LagParams, "max_lag_s", -1.0, "> 0"),
    (TakeParams, "tail_s", float("nan"), "> 0"),
    (WatchParams, "clip_level", 1.5, "in [0, 1]"),
    (LadderParams, "accuracy", -0.1, "in [0, 1]"),
    (CameraParams, "ring", 0, ">= 1"),
    (VoiceParams, "max_queue", 0, ">= 1"),
    (ControlParams, "choice_timeout_s", "8", "> 0"),
    (GainParams, "min_spread_db", -1.0, ">= 0"),
    (GainParams, "step_db", 0.0, "> 0"),
    (GainParams, "percentile", 20.0, "in [50, 100]"),
    (SelfFitParams, "min_depth_db", -0.5, ">= 0"),
    (SelfFitParams, "min_pairs", 0, ">= 1"),
    (FoundParams, "voice_db", -1.0, ">= 0"),
])
def test_out_of_range_names_the_field(cls, name, value, allowed):
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.{name} must be {re.escape(allowed)}"):
        dataclasses.replace(cls(), **{name: value})


def test_none_is_off_not_out_of_range():
    assert NoisyTriggerParams(walk_db=None).walk_db is None
    assert VoiceParams(trim_db=None).trim_db is None
