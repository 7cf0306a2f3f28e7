-- Each model's price at each provider, on each date some rental source has data for, from every
-- offer: the rule of rental_provider_prices_meeting, with no terms asked of the hosts.
CREATE OR REPLACE VIEW rental_provider_prices AS
SELECT * FROM rental_provider_prices_meeting(NULL, NULL, false);
