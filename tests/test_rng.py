from memshift.rng import Streams, stream


def test_same_seed_and_name_give_the_same_draws():
    assert (stream(7, "meetings").random(5) == stream(7, "meetings").random(5)).all()


def test_streams_differ_by_name_seed_and_salt():
    draws = {
        "name": tuple(stream(7, "dm").random(3)),
        "seed": tuple(stream(8, "meetings").random(3)),
        "salt": tuple(stream(7, "meetings", "x").random(3)),
        "base": tuple(stream(7, "meetings").random(3)),
    }
    assert len(set(draws.values())) == 4


def test_salting_one_stream_leaves_the_others_alone():
    plain, salted = Streams(3), Streams(3, {"newsletters": "changed"})
    assert tuple(plain("dm").random(4)) == tuple(salted("dm").random(4))
    assert tuple(plain("newsletters").random(4)) != tuple(salted("newsletters").random(4))
