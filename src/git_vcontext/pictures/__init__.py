"""Pictures of graphs (playbook event chains, agents around their base) as DOT and mermaid."""
