"""RAG and search-agent systems (and the no-retrieval baseline) for the safety_retrieval benchmark."""

from workers.methods.retrieval_agents.agent import SearchAgent, parse_action
from workers.methods.retrieval_agents.plugin import RetrievalAgent, RetrievalRAG, SafetyDirect
from workers.methods.retrieval_agents.rag import RAGResponder

__all__ = [
    "RAGResponder",
    "RetrievalAgent",
    "RetrievalRAG",
    "SafetyDirect",
    "SearchAgent",
    "parse_action",
]
