"""The operator-token rule has one home (settings.token_allows): the service and the dashboard ask it."""

from smartvector_core.settings import token_allows


def test_open_without_a_token():
    assert token_allows(None, None) and token_allows("", "anything")


def test_exact_token_only():
    assert token_allows("s3cret", "s3cret")
    assert not token_allows("s3cret", "s3cre") and not token_allows("s3cret", "") and not token_allows("s3cret", None)


def test_debug_flag_is_read_in_settings():
    from smartvector_core.settings import debug_enabled

    assert debug_enabled({"SMARTVECTOR_DEBUG": "1"}) and not debug_enabled({})
