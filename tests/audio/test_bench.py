def test_benchmark_runs_and_prints_every_figure(capsys):
    from audio import bench
    from benchmarks import bench_audio

    bench.main(["--size", "tiny", "--lang", "ja"], bench_audio.vocabularies())
    out = capsys.readouterr().out
    for needle in ("keyword exact", "onset error", "false alarms", "confidence gate", "10 ms apart", "100 ms apart", "onset error first", "real-time factor", "detector", "load average"):
        assert needle in out
