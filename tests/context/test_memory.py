"""Memory policy: model statements are provisional, expired values go, corrections replace, stale summaries drop."""

import datetime as dt

import pytest

from botie.context.memory import MemoryEntry, MemoryStatus, Origin, carry_forward
from botie.errors import InputError

T0 = dt.datetime(2026, 3, 15, 9, tzinfo=dt.timezone.utc)


def at(hours):
    return T0 + dt.timedelta(hours=hours)


def status_of(entries, now=None):
    now = at(10) if now is None else now
    return [str(o.status) for o in carry_forward(entries, now=now).outcomes]


def test_a_model_statement_is_provisional_and_not_carried():
    e = MemoryEntry("torque", "25 N·m", Origin.MODEL, at(1))
    carried = carry_forward([e], now=at(2))
    assert carried.outcomes[0].status is MemoryStatus.PROVISIONAL and carried.kept == ()


def test_an_expired_entry_is_dropped_and_one_not_yet_expired_is_kept():
    focus = MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(0), expires_at=at(8))
    assert status_of([focus], now=at(7)) == ["kept"]
    assert status_of([focus], now=at(8)) == ["expired"]


def test_a_later_correction_replaces_the_earlier_value():
    old = MemoryEntry("seal_replaced", "2026-03-01", Origin.TECHNICIAN, at(1))
    new = MemoryEntry("seal_replaced", "2026-03-14", Origin.DOCUMENT, at(2), source_id="tkt-5521")
    carried = carry_forward([old, new], now=at(3))
    assert status_of([old, new], now=at(3)) == ["replaced", "kept"]
    assert [e.value for e in carried.kept] == ["2026-03-14"]


def test_a_replaced_value_stays_replaced_after_the_correction_expires():
    """Torque 20 at 09:00, corrected to 18 at 10:00 until 12:00: at 14:00 neither is carried, and 20 never returns."""
    old = MemoryEntry("torque", "20", Origin.DOCUMENT, at(0), source_id="man-p2-r3-s3.2")
    new = MemoryEntry("torque", "18", Origin.DOCUMENT, at(1), expires_at=at(3), source_id="man-p2-r4-s3.2")
    carried = carry_forward([old, new], now=at(5))
    assert [(o.value, str(o.status)) for o in carried.outcomes] == [("20", "replaced"), ("18", "expired")]
    assert carried.kept == ()
    assert carried.outcomes[0].reason == "replaced by '18' (document) written later, which has since expired"
    before = carry_forward([old, new], now=at(2))
    assert [str(o.status) for o in before.outcomes] == ["replaced", "kept"]
    assert before.outcomes[0].reason == "replaced by '18' (document) written later"


def test_a_model_guess_or_a_hidden_entry_still_replaces_nothing_even_once_expired():
    fact = MemoryEntry("torque", "18", Origin.DOCUMENT, at(0), source_id="man-p2-r4-s3.2")
    guess = MemoryEntry("torque", "25", Origin.MODEL, at(1), expires_at=at(2))
    other = MemoryEntry("torque", "30", Origin.TECHNICIAN, at(1), expires_at=at(2), owner="someone-else")
    assert status_of([fact, guess, other], now=at(5)) == ["kept", "provisional", "hidden"]


def test_a_summary_written_before_a_key_it_covers_changed_is_stale():
    old = MemoryEntry("seal_replaced", "2026-03-01", Origin.TECHNICIAN, at(1))
    summary = MemoryEntry("summary", "seal replaced 2026-03-01", Origin.SUMMARY, at(2), covers=("seal_replaced",))
    new = MemoryEntry("seal_replaced", "2026-03-14", Origin.DOCUMENT, at(3), source_id="tkt-5521")
    assert status_of([old, summary, new]) == ["replaced", "stale_summary", "kept"]
    assert status_of([old, summary]) == ["kept", "kept"]


def test_a_fact_from_a_document_must_keep_its_source():
    with pytest.raises(InputError) as info:
        MemoryEntry("torque", "18 N·m", Origin.DOCUMENT, at(1))
    assert info.value.field == "source_id"


def test_naive_datetimes_are_refused():
    with pytest.raises(InputError):
        MemoryEntry("k", "v", Origin.TECHNICIAN, dt.datetime(2026, 3, 15))
    with pytest.raises(InputError):
        carry_forward([], now=dt.datetime(2026, 3, 15))


def test_an_origin_given_as_text_is_read_as_the_origin_and_covers_becomes_a_tuple():
    guess = MemoryEntry("torque", "25 N·m", "model", at(1))
    summary = MemoryEntry("summary", "seal replaced 2026-03-01", "summary", at(2), covers=["seal_replaced"])
    assert guess.origin is Origin.MODEL and summary.origin is Origin.SUMMARY
    assert summary.covers == ("seal_replaced",)
    assert status_of([guess]) == ["provisional"]


def test_a_model_guess_never_replaces_a_value_someone_gave_even_when_written_later():
    said = MemoryEntry("torque", "18 N·m", Origin.TECHNICIAN, at(1))
    guess = MemoryEntry("torque", "25 N·m", Origin.MODEL, at(2))
    assert status_of([said, guess]) == ["kept", "provisional"]


def test_an_entry_expires_at_this_moment_and_what_it_replaced_does_not_come_back():
    """At ``now == expires_at`` the later value is gone; the older one it replaced stays replaced."""
    old = MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(1))
    new = MemoryEntry("focus", "P-3 bearing", Origin.TECHNICIAN, at(2), expires_at=at(10))
    assert status_of([old, new], now=at(10)) == ["replaced", "expired"]
    assert status_of([old, new], now=at(9)) == ["replaced", "kept"]


def test_two_different_values_written_at_the_same_moment_conflict_and_neither_wins_by_position():
    first = MemoryEntry("seal_replaced", "2026-03-01", Origin.TECHNICIAN, at(1))
    second = MemoryEntry("seal_replaced", "2026-03-14", Origin.TECHNICIAN, at(1))
    assert status_of([first, second]) == ["conflict", "conflict"]
    assert status_of([second, first]) == ["conflict", "conflict"]


def test_a_summary_written_at_the_same_moment_as_a_key_it_covers_is_not_stale():
    fact = MemoryEntry("seal_replaced", "2026-03-14", Origin.TECHNICIAN, at(2))
    summary = MemoryEntry("summary", "seal replaced 2026-03-14", Origin.SUMMARY, at(2), covers=("seal_replaced",))
    assert status_of([fact, summary]) == ["kept", "kept"]


def test_explain_gives_every_entry_its_status_value_and_reason_one_line_each():
    entries = [
        MemoryEntry("torque", "25 N·m", Origin.MODEL, at(1)),
        MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(1), expires_at=at(2)),
        MemoryEntry("seal", "2026-03-01", Origin.TECHNICIAN, at(1)),
        MemoryEntry("pump", "P-2", Origin.TECHNICIAN, at(1)),
        MemoryEntry("summary", "P-2, seal 2026-03-01", Origin.SUMMARY, at(2), covers=("pump", "seal")),
        MemoryEntry("seal", "2026-03-14", Origin.DOCUMENT, at(3), source_id="tkt-5521"),
        MemoryEntry("pump", "P-2B", Origin.TECHNICIAN, at(3)),
    ]
    carried = carry_forward(entries, now=at(5))
    assert [(o.key, o.value) for o in carried.outcomes] == [(e.key, e.value) for e in entries]
    assert carried.explain().splitlines() == [
        "provisional    torque         '25 N·m': "
        "the model said it; nobody confirmed it, so it is not carried as a fact",
        "expired        focus          'P-2 seal': expired at 2026-03-15 11:00",
        "replaced       seal           '2026-03-01': replaced by '2026-03-14' (document) written later",
        "replaced       pump           'P-2': replaced by 'P-2B' (technician) written later",
        "stale_summary  summary        'P-2, seal 2026-03-01': "
        "written before pump, seal changed: it repeats the old value",
        "kept           seal           '2026-03-14': document (from tkt-5521)",
        "kept           pump           'P-2B': technician",
    ]


@pytest.mark.parametrize(
    ("key", "value", "field", "shown"),
    [("", "v", "key", "''"), ("k", "  ", "value", "'  '"), ("k", None, "value", "missing")],
)
def test_an_empty_or_missing_key_or_value_names_the_field(key, value, field, shown):
    with pytest.raises(InputError) as info:
        MemoryEntry(key, value, Origin.TECHNICIAN, at(1))
    assert (str(info.value), info.value.field, info.value.record) == (
        f"memory entry: {field} must be a non-empty string, got {shown}",
        field,
        key,
    )


def test_bad_entries_name_the_field_and_the_entry():
    naive = dt.datetime(2026, 3, 15)
    cases = [
        (
            lambda: MemoryEntry("k", "v", Origin.TECHNICIAN, naive),
            "written_at",
            "memory entry k: written_at must be a datetime with a time zone, got datetime.datetime(2026, 3, 15, 0, 0)",
        ),
        (
            lambda: MemoryEntry("k", "v", Origin.TECHNICIAN, at(1), expires_at="tomorrow"),
            "expires_at",
            "memory entry k: expires_at must be a datetime with a time zone, got 'tomorrow'",
        ),
        (
            lambda: MemoryEntry("k", "v", Origin.DOCUMENT, at(1)),
            "source_id",
            "memory entry k: a fact from a document needs its source_id",
        ),
        (
            lambda: MemoryEntry("k", "v", Origin.SUMMARY, at(1)),
            "covers",
            "memory entry k: covers is for summaries, and a summary needs it",
        ),
        (
            lambda: MemoryEntry("k", "v", Origin.TECHNICIAN, at(1), covers=("x",)),
            "covers",
            "memory entry k: covers is for summaries, and a summary needs it",
        ),
    ]
    for build, field, message in cases:
        with pytest.raises(InputError) as info:
            build()
        assert (str(info.value), info.value.field, info.value.record) == (message, field, "k")


def test_bad_arguments_to_carry_forward_name_the_field():
    with pytest.raises(InputError) as info:
        carry_forward([], now=dt.datetime(2026, 3, 15))
    assert (str(info.value), info.value.field) == (
        "now must be a datetime with a time zone, got datetime.datetime(2026, 3, 15, 0, 0)",
        "now",
    )
    with pytest.raises(InputError) as info:
        carry_forward([("torque", "18 N·m")], now=at(1))
    assert (str(info.value), info.value.field) == (
        "memory holds MemoryEntry values, got ('torque', '18 N·m')",
        "entry",
    )


# --- who may see a remembered value -----------------------------------------------------


def test_another_persons_remembered_value_is_hidden_and_never_shown():
    mine = MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(1), owner="tech-ana")
    theirs = MemoryEntry("reminder", "call the seal supplier", Origin.TECHNICIAN, at(1), owner="tech-bo")
    carried = carry_forward([mine, theirs], now=at(2), reader="tech-ana", allowed_assets=["P-2"])
    assert carried.kept == (mine,)
    assert carried.outcomes[1] == ("reminder", "(hidden)", MemoryStatus.HIDDEN, "remembered for another person")
    assert "supplier" not in carried.explain()
    assert carried.checks[0] == "visibility"


def test_a_value_about_an_asset_the_reader_may_not_read_is_hidden():
    k7 = MemoryEntry("k7_torque", "40 N·m", Origin.DOCUMENT, at(1), source_id="man-k7-s2", asset="K-7")
    carried = carry_forward([k7], now=at(2), reader="tech-ana", allowed_assets=["P-2", "P-3"])
    assert carried.kept == ()
    assert carried.outcomes[0].reason == "about K-7, which this reader may not read"
    assert carried.outcomes[0].value == "(hidden)"


def test_a_hidden_value_cannot_replace_a_visible_one():
    ana = MemoryEntry("torque", "18 N·m", Origin.DOCUMENT, at(1), source_id="man-p2-r4-s3.2", owner="tech-ana")
    bo = MemoryEntry("torque", "22 N·m", Origin.TECHNICIAN, at(2), owner="tech-bo")
    carried = carry_forward([ana, bo], now=at(3), reader="tech-ana", allowed_assets=["P-2"])
    assert carried.kept == (ana,)


def test_with_no_reader_named_an_owned_or_asset_bound_value_is_seen_by_nobody():
    owned = MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(1), owner="tech-ana")
    bound = MemoryEntry("asset", "P-2", Origin.TECHNICIAN, at(1), asset="P-2")
    shared = MemoryEntry("site", "Site A", Origin.TECHNICIAN, at(1))
    assert carry_forward([owned, bound, shared], now=at(2)).kept == (shared,)


def test_an_owner_and_an_asset_are_non_empty_text():
    with pytest.raises(InputError) as err:
        MemoryEntry("focus", "P-2 seal", Origin.TECHNICIAN, at(1), owner=" ")
    assert err.value.field == "owner"


@pytest.mark.parametrize("reverse", [False, True], ids=["as listed", "reversed"])
def test_two_values_for_one_key_written_at_the_same_moment_are_a_conflict_in_either_order(reverse):
    """Never settled by position: a tie between different values keeps neither, and each entry says why."""
    a = MemoryEntry("torque", "18 N·m", Origin.TECHNICIAN, at(1))
    b = MemoryEntry("torque", "20 N·m", Origin.DOCUMENT, at(1), source_id="man-p2-r3-s3.2")
    older = MemoryEntry("torque", "25 N·m", Origin.TECHNICIAN, at(0))
    entries = [older, a, b] if not reverse else [b, a, older]
    carried = carry_forward(entries, now=at(2))
    assert carried.kept == ()
    status = {o.value: (o.status, o.reason) for o in carried.outcomes}
    assert status["18 N·m"][0] is status["20 N·m"][0] is MemoryStatus.CONFLICT
    assert "'18 N·m', '20 N·m'" in status["18 N·m"][1] and "none is carried" in status["20 N·m"][1]
    assert status["25 N·m"][0] is MemoryStatus.REPLACED and "conflict" in status["25 N·m"][1]


@pytest.mark.parametrize("reverse", [False, True], ids=["as listed", "reversed"])
def test_the_same_value_written_twice_at_one_moment_is_kept_once_the_longer_lasting_in_either_order(reverse):
    """Agreeing entries at one moment: the one that lasts longer is kept, whatever the list order."""
    short = MemoryEntry("asset", "P-2", Origin.TECHNICIAN, at(1), expires_at=at(2))
    long = MemoryEntry("asset", "P-2", Origin.TECHNICIAN, at(1), expires_at=at(8))
    entries = [short, long][::-1] if reverse else [short, long]
    carried = carry_forward(entries, now=at(1))
    assert carried.kept == (long,)
    later = carry_forward(entries, now=at(3))  # the short one has expired; the long one still speaks for the key
    assert later.kept == (long,)
    duplicate = next(o for e, o in zip(entries, carried.outcomes) if e is short)
    assert duplicate.status is MemoryStatus.REPLACED and duplicate.reason.startswith("a duplicate")


def test_a_later_value_that_has_expired_still_leaves_the_key_without_value_in_either_order():
    """x='old' at 09:00, x='new' at 10:00 until 11:00; at 12:00 old is replaced and new expired, whatever the order."""
    old = MemoryEntry("x", "old", Origin.TECHNICIAN, at(0))
    new = MemoryEntry("x", "new", Origin.TECHNICIAN, at(1), expires_at=at(2))
    for entries in ([old, new], [new, old]):
        carried = carry_forward(entries, now=at(3))
        assert carried.kept == ()
        assert {o.value: str(o.status) for o in carried.outcomes} == {"old": "replaced", "new": "expired"}
