-- A harness's newest fetch is its whole truth: its previous figures go before the new ones are stored.
DELETE FROM harness_figures WHERE harness = ?;
