"""Live in a real room (issue 21): a short video of a held-out page written on in red, while the light
dims and a warm lamp comes on, a glare spot drifts across the grid and the hand shakes in bursts. The
real CLI reads it; its JSONL log must never show a wrong answer or call a right entry wrong, and once
the board is locked the answer stays drawn on most frames."""

from __future__ import annotations

import pytest
from conftest import PHOTOS, need


@pytest.mark.data
def test_a_dimming_glaring_shaking_room_never_shows_a_wrong_answer_or_a_false_mistake(tmp_path):
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "mixed" / "image10.jpg")
    import clips
    import eval_room_video
    import make_room_video

    video = tmp_path / "room.mp4"
    assert make_room_video.main(["--out", str(video), "--photos", "image10", "--seconds", "5"]) == 0
    truth = clips.read_jsonl(video.with_suffix(".truth.jsonl"))
    assert len(truth) == 150
    assert {e for t in truth for e in ("dim", "lamp", "glare", "motion") if e in t} == {"dim", "lamp", "glare",
                                                                                          "motion"}
    log = tmp_path / "room.jsonl"
    clips.run_video(video, log, "test")
    fig = eval_room_video.compare(truth, clips.read_jsonl(log))
    assert fig.frames == 150 and fig.in_view > 100
    assert fig.wrong == 0
    assert fig.false_mistake_frames == 0 and not fig.false_mistake_cells
    assert fig.drawn_after_lock >= 0.85 * fig.in_view_after_lock
    assert fig.drawn >= 0.8 * fig.in_view
    dim_drawn, dim_seen = fig.by_effect["dim"]
    assert dim_drawn >= 0.9 * dim_seen  # a dim room does not take the answer away
    glare_drawn, glare_seen = fig.by_effect["glare"]
    assert glare_drawn >= 0.9 * glare_seen  # nor does a glare that hides a few givens from a re-read


@pytest.mark.data
def test_pale_print_on_a_page_written_in_dark_pen_keeps_its_answer_drawn_through_the_room(tmp_path):
    """image155: its givens printed pale pink, every other cell written in dark red. The per-frame ink check
    once took the pale print for gone against the pen, and the answer was never drawn."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "mixed" / "image155.jpg")
    import clips
    import eval_room_video
    import make_room_video

    video = tmp_path / "room.mp4"
    assert make_room_video.main(["--out", str(video), "--photos", "image155", "--seconds", "10"]) == 0
    log = tmp_path / "room.jsonl"
    clips.run_video(video, log, "test")
    fig = eval_room_video.compare(clips.read_jsonl(video.with_suffix(".truth.jsonl")),
                                  clips.read_jsonl(log))
    assert fig.in_view > 200
    assert fig.wrong == 0 and fig.false_mistake_frames == 0
    assert fig.drawn >= 0.9 * fig.in_view


@pytest.mark.data
def test_a_shaking_hands_streak_keeps_the_board_and_its_answer_instead_of_losing_the_track(tmp_path):
    """A training page (image17) through the room: in the burst of motion blur under the lamp and the glare the
    crossings' flow and the detector both fail. The board is held where it was while its grid is streaked and
    its givens' ink is there, so the track (the log's puzzle id) never ends and the answer stays drawn through
    the burst, where it used to vanish for the whole burst and the re-read after it."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "mixed" / "image17.jpg")
    import clips
    import eval_room_video
    import make_room_video

    video = tmp_path / "room.mp4"
    assert make_room_video.main(["--out", str(video), "--split", "train", "--photos", "image17",
                                 "--seconds", "5"]) == 0
    log = tmp_path / "room.jsonl"
    clips.run_video(video, log, "test")
    truth, records = clips.read_jsonl(video.with_suffix(".truth.jsonl")), clips.read_jsonl(log)
    fig = eval_room_video.compare(truth, records)
    assert fig.wrong == 0 and fig.false_mistake_frames == 0
    bursts = [t["frame"] for t in truth if t["visible"] and "motion" in t]
    assert len(bursts) >= 8  # the burst at 2.5 s, with the page in view
    motion_drawn, motion_seen = fig.by_effect["motion"]
    assert motion_drawn >= 0.9 * motion_seen
    in_view = [rec for rec, t in zip(records, truth) if t["visible"]]
    assert len({p["puzzle"] for rec in in_view for p in rec["puzzles"]}) == 1  # one track: never lost
    assert fig.drawn_after_lock >= 0.97 * fig.in_view_after_lock


@pytest.mark.data
def test_the_training_side_room_video_shows_only_training_puzzles_and_refuses_held_out_ones(tmp_path, capsys):
    need(PHOTOS / "printed")
    import make_room_video
    from photos import held_out_puzzles

    names = make_room_video.train_photos(3)
    assert len(names) == make_room_video.TRAIN_PUZZLES and not set(names) & held_out_puzzles()
    assert make_room_video.train_photos(3) == names  # seeded
    assert make_room_video.main(["--out", str(tmp_path / "r.mp4"), "--split", "train", "--photos", "image10"]) == 2
    assert "training photos" in capsys.readouterr().err
    assert not (tmp_path / "r.mp4").exists()


@pytest.mark.data
def test_a_lockstep_replay_gives_the_same_figures_twice_and_the_judge_prints_them(tmp_path, capsys):
    """``eval_room_video.py --lockstep LAG``: the session stepped in-process, each solve waited for once it is
    LAG frames old, so two runs (two versions of the code, or one machine busy and one idle) give the same
    figures: the judge's run prints those of a replay before it."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "mixed" / "image10.jpg")
    import clips
    import eval_room_video
    import make_room_video

    video = tmp_path / "room.mp4"
    assert make_room_video.main(["--out", str(video), "--photos", "image10", "--seconds", "2"]) == 0
    capsys.readouterr()
    first = clips.replay_video(video, 1)
    assert len(first) == 60
    fig = eval_room_video.compare(clips.read_jsonl(video.with_suffix(".truth.jsonl")), first)
    assert fig.drawn > 0 and fig.wrong == 0 and fig.false_mistake_frames == 0
    assert eval_room_video.main([str(video), "--lockstep", "1"]) == 0
    assert capsys.readouterr().out.strip() == "\n".join(fig.lines())
    with pytest.raises(SystemExit) as bad:
        eval_room_video.main([str(video), "--lockstep", "-1"])
    assert bad.value.code == 2 and "--lockstep" in capsys.readouterr().err
    assert eval_room_video.main([str(tmp_path / "none.mp4"), "--lockstep", "1"]) == 2
