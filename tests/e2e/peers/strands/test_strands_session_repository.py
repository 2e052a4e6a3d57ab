"""Pinned copy of Strands' own FileSessionManager tests, run with `offprompt_client.strands.
OffpromptSessionRepository` as the manager on the real local stack (issue 30 item 8, docs/adr/0046). Do not edit
the tests below to make them pass: fix the door.

Source: `tests/strands/session/test_file_session_manager.py` of strands-agents 1.62.0 (the version
requirements/dev.lock installs), as its PyPI sdist ships it: strands_agents-1.62.0.tar.gz, sha256
8732c87f9c1ceb6ef4c5c4bd6d96b4cdf1bbfde095f1537ec2ac6fddb8d5a066. License: Apache-2.0,
tests/e2e/peers/strands/LICENSE and NOTICE.

Adapted (nothing else changed):
- the `file_manager` and `multi_agent_manager` fixtures (FileSessionManager on a temporary directory) -> one
  OffpromptSessionRepository in the test's own tenant (the stand-in for a fresh directory);
- `test_message_durable_id_persists`: its check of the message file on disk removed (the round trip through
  `read_message` that follows is kept).
Left out (file-path checks and FileSessionManager internals):
- `temp_dir` (a temporary directory: each test has its own tenant instead)
- `file_manager` (replaced below: an OffpromptSessionRepository in the test's tenant)
- `multi_agent_manager` (replaced below: the same)
- `test_create_session` (checks files and directories FileSessionManager writes)
- `test_delete_session` (checks files and directories FileSessionManager writes)
- `test_create_agent` (checks files and directories FileSessionManager writes)
- `test_create_message` (checks files and directories FileSessionManager writes)
- `test_corrupted_json_file` (FileSessionManager._read_file)
- `test_permission_error_handling` (patches builtins.open)
- `test__get_session_path_invalid_session_id` (FileSessionManager._get_session_path)
- `test__get_agent_path_invalid_agent_id` (FileSessionManager._get_agent_path)
- `test__get_message_path_invalid_message_id` (FileSessionManager._get_message_path)
- `test_create_multi_agent` (checks files and directories FileSessionManager writes)
- `test_create_session_multi_agent_directory_structure` (checks files and directories FileSessionManager writes)
"""

from unittest.mock import Mock

import pytest

from strands.agent.conversation_manager.null_conversation_manager import NullConversationManager
from strands.types.content import ContentBlock
from strands.types.exceptions import SessionException
from strands.types.session import Session, SessionAgent, SessionMessage, SessionType

from offprompt_client import OffpromptClient
from offprompt_client.strands import OffpromptSessionRepository

pytestmark = pytest.mark.slow


@pytest.fixture
def file_manager(peer_client: OffpromptClient):
    """(adapted) The stand-in for FileSessionManager on a fresh directory: the test's own tenant."""
    return OffpromptSessionRepository(client=peer_client)


@pytest.fixture
def multi_agent_manager(file_manager):
    """(adapted) The same repository."""
    return file_manager


@pytest.fixture
def sample_session():
    """Create sample session for testing."""
    return Session(session_id="test-session", session_type=SessionType.AGENT)


@pytest.fixture
def sample_agent():
    """Create sample agent for testing."""
    return SessionAgent(
        agent_id="test-agent", state={"key": "value"}, conversation_manager_state=NullConversationManager().get_state()
    )


@pytest.fixture
def sample_message():
    """Create sample message for testing."""
    return SessionMessage.from_message(
        message={
            "role": "user",
            "content": [ContentBlock(text="Hello world")],
        },
        index=0,
    )


@pytest.fixture
def mock_multi_agent():
    """Create mock multi-agent for testing."""
    mock = Mock()
    mock.id = "test-multi-agent"
    mock.state = {"key": "value"}
    mock.serialize_state.return_value = {"id": "test-multi-agent", "state": {"key": "value"}}
    return mock


def test_read_session(file_manager, sample_session):
    """Test reading an existing session."""
    # Create session first
    file_manager.create_session(sample_session)

    # Read it back
    result = file_manager.read_session(sample_session.session_id)

    assert result.session_id == sample_session.session_id
    assert result.session_type == sample_session.session_type


def test_read_nonexistent_session(file_manager):
    """Test reading a session that doesn't exist."""
    result = file_manager.read_session("nonexistent-session")
    assert result is None


def test_delete_nonexistent_session(file_manager):
    """Test deleting a session that doesn't exist."""
    # Should raise an error according to the implementation
    with pytest.raises(SessionException, match="does not exist"):
        file_manager.delete_session("nonexistent-session")


def test_read_agent(file_manager, sample_session, sample_agent):
    """Test reading an agent from a session."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    # Read agent
    result = file_manager.read_agent(sample_session.session_id, sample_agent.agent_id)

    assert result.agent_id == sample_agent.agent_id
    assert result.state == sample_agent.state


def test_read_nonexistent_agent(file_manager, sample_session):
    """Test reading an agent that doesn't exist."""
    result = file_manager.read_agent(sample_session.session_id, "nonexistent_agent")
    assert result is None


def test_update_agent(file_manager, sample_session, sample_agent):
    """Test updating an agent."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    # Update agent
    sample_agent.state = {"updated": "value"}
    file_manager.update_agent(sample_session.session_id, sample_agent)

    # Verify update
    result = file_manager.read_agent(sample_session.session_id, sample_agent.agent_id)
    assert result.state == {"updated": "value"}


def test_update_nonexistent_agent(file_manager, sample_session, sample_agent):
    """Test updating an agent."""
    # Create session and agent
    file_manager.create_session(sample_session)

    # Update agent
    with pytest.raises(SessionException):
        file_manager.update_agent(sample_session.session_id, sample_agent)


def test_message_durable_id_persists(file_manager, sample_session, sample_agent):
    """The durable message id is written to disk and survives a create/read round-trip."""
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    message = SessionMessage.from_message(
        message={"role": "user", "content": [ContentBlock(text="Hello")], "tracking_id": "durable-1"},
        index=0,
    )
    file_manager.create_message(sample_session.session_id, sample_agent.agent_id, message)


    result = file_manager.read_message(sample_session.session_id, sample_agent.agent_id, message.message_id)
    assert result.to_message()["tracking_id"] == "durable-1"


def test_read_message(file_manager, sample_session, sample_agent, sample_message):
    """Test reading a message."""
    # Create session, agent, and message
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)
    file_manager.create_message(sample_session.session_id, sample_agent.agent_id, sample_message)

    # Create multiple messages when reading
    sample_message.message_id = sample_message.message_id + 1
    file_manager.create_message(sample_session.session_id, sample_agent.agent_id, sample_message)

    # Read message
    result = file_manager.read_message(sample_session.session_id, sample_agent.agent_id, sample_message.message_id)

    assert result.message_id == sample_message.message_id
    assert result.message["role"] == sample_message.message["role"]
    assert result.message["content"] == sample_message.message["content"]


def test_read_messages_with_new_agent(file_manager, sample_session, sample_agent):
    """Test reading a message with with a new agent."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    result = file_manager.read_message(sample_session.session_id, sample_agent.agent_id, 999)

    assert result is None


def test_read_nonexistent_message(file_manager, sample_session, sample_agent):
    """Test reading a message that doesnt exist."""
    result = file_manager.read_message(sample_session.session_id, sample_agent.agent_id, 999)
    assert result is None


def test_list_messages_all(file_manager, sample_session, sample_agent):
    """Test listing all messages for an agent."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    # Create multiple messages
    messages = []
    for i in range(5):
        message = SessionMessage(
            message={
                "role": "user",
                "content": [ContentBlock(text=f"Message {i}")],
            },
            message_id=i,
        )
        messages.append(message)
        file_manager.create_message(sample_session.session_id, sample_agent.agent_id, message)

    # List all messages
    result = file_manager.list_messages(sample_session.session_id, sample_agent.agent_id)

    assert len(result) == 5


def test_list_messages_with_limit(file_manager, sample_session, sample_agent):
    """Test listing messages with limit."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    # Create multiple messages
    for i in range(10):
        message = SessionMessage(
            message={
                "role": "user",
                "content": [ContentBlock(text=f"Message {i}")],
            },
            message_id=i,
        )
        file_manager.create_message(sample_session.session_id, sample_agent.agent_id, message)

    # List with limit
    result = file_manager.list_messages(sample_session.session_id, sample_agent.agent_id, limit=3)

    assert len(result) == 3


def test_list_messages_with_offset(file_manager, sample_session, sample_agent):
    """Test listing messages with offset."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    # Create multiple messages
    for i in range(10):
        message = SessionMessage(
            message={
                "role": "user",
                "content": [ContentBlock(text=f"Message {i}")],
            },
            message_id=i,
        )
        file_manager.create_message(sample_session.session_id, sample_agent.agent_id, message)

    # List with offset
    result = file_manager.list_messages(sample_session.session_id, sample_agent.agent_id, offset=5)

    assert len(result) == 5


def test_list_messages_with_new_agent(file_manager, sample_session, sample_agent):
    """Test listing messages with new agent."""
    # Create session and agent
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    result = file_manager.list_messages(sample_session.session_id, sample_agent.agent_id)

    assert len(result) == 0


def test_update_message(file_manager, sample_session, sample_agent, sample_message):
    """Test updating a message."""
    # Create session, agent, and message
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)
    file_manager.create_message(sample_session.session_id, sample_agent.agent_id, sample_message)

    # Update message
    sample_message.message["content"] = [ContentBlock(text="Updated content")]
    file_manager.update_message(sample_session.session_id, sample_agent.agent_id, sample_message)

    # Verify update
    result = file_manager.read_message(sample_session.session_id, sample_agent.agent_id, sample_message.message_id)
    assert result.message["content"][0]["text"] == "Updated content"


def test_update_nonexistent_message(file_manager, sample_session, sample_agent, sample_message):
    """Test updating a message."""
    # Create session, agent, and message
    file_manager.create_session(sample_session)
    file_manager.create_agent(sample_session.session_id, sample_agent)

    # Update nonexistent message
    with pytest.raises(SessionException):
        file_manager.update_message(sample_session.session_id, sample_agent.agent_id, sample_message)


def test_read_multi_agent(multi_agent_manager, sample_session, mock_multi_agent):
    """Test reading multi-agent state."""
    # Create session and multi-agent
    multi_agent_manager.create_session(sample_session)
    multi_agent_manager.create_multi_agent(sample_session.session_id, mock_multi_agent)

    # Read multi-agent
    result = multi_agent_manager.read_multi_agent(sample_session.session_id, mock_multi_agent.id)

    assert result["id"] == mock_multi_agent.id
    assert result["state"] == mock_multi_agent.state


def test_read_nonexistent_multi_agent(multi_agent_manager, sample_session):
    """Test reading multi-agent state that doesn't exist."""
    result = multi_agent_manager.read_multi_agent(sample_session.session_id, "nonexistent")
    assert result is None


def test_update_multi_agent(multi_agent_manager, sample_session, mock_multi_agent):
    """Test updating multi-agent state."""
    # Create session and multi-agent
    multi_agent_manager.create_session(sample_session)
    multi_agent_manager.create_multi_agent(sample_session.session_id, mock_multi_agent)

    updated_mock = Mock()
    updated_mock.id = mock_multi_agent.id
    updated_mock.serialize_state.return_value = {"id": mock_multi_agent.id, "state": {"updated": "value"}}
    multi_agent_manager.update_multi_agent(sample_session.session_id, updated_mock)

    # Verify update
    result = multi_agent_manager.read_multi_agent(sample_session.session_id, mock_multi_agent.id)
    assert result["state"] == {"updated": "value"}


def test_update_nonexistent_multi_agent(multi_agent_manager, sample_session):
    """Test updating multi-agent state that doesn't exist."""
    # Create session
    multi_agent_manager.create_session(sample_session)

    nonexistent_mock = Mock()
    nonexistent_mock.id = "nonexistent"
    with pytest.raises(SessionException):
        multi_agent_manager.update_multi_agent(sample_session.session_id, nonexistent_mock)
