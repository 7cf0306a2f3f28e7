SELECT name, export_kind, attribution, licence FROM sources ORDER BY name;
